import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuardrails, generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentQuestion } from '../../src-main/agent/agentTypes.ts';
import { SecretRedactor } from '../../src-main/base/logger.ts';
import { codeFromMessage } from '../../src-main/engine/credentials/codeText.ts';
import type { CodeSource } from '../../src-main/engine/credentials/codeWaiter.ts';
import { CredentialService } from '../../src-main/engine/credentials/credentialService.ts';
import { KeychainSecretStore, scopedSecretStore } from '../../src-main/secrets/index.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { FakeClock } from '../helpers/fakeClock.ts';

const SEED = 'JBSWY3DPEHPK3PXP';
const codeAt = (seconds: number): string =>
  generateSync({ secret: SEED, epoch: seconds, guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }) });
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('waiting for a one-time code (CodeWaiter) on an injected clock, with the real keychain and SQLite', () => {
  let dir: string;
  let store: Store;
  let clock: FakeClock;
  let service: CredentialService;
  let credentialId: string;
  let phoneId: string;
  const redactor = new SecretRedactor();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-codes-'));
    store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('default');
    store.principals.ensureWorkspace('team', 'default');
    // Start 26 s into a 30 s TOTP step, so the injected clock decides which code is typed.
    clock = new FakeClock(Date.parse('2100-01-01T00:00:26.000Z'));
    const secrets = scopedSecretStore(new KeychainSecretStore(), `test-codes-${Date.now()}`);
    service = new CredentialService({ store, secrets: async () => secrets, redactor, clock });
    phoneId = service.addPhoneNumber({ userId: 'u', workspaceId: 'team' }, { phone_number: '+15550002222' }).id;
    credentialId = (
      await service.create(
        { userId: 'u', workspaceId: 'team' },
        { service_name: 'Bank', username_or_email: 'ada', totp_secret: SEED, phone_number_id: phoneId },
      )
    ).id;
  });
  afterAll(async () => {
    await service?.delete('team', credentialId).catch(() => undefined);
    store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const job = (humanInTheLoop: boolean, asked: AgentQuestion[] = [], answer = '') => {
    const controller = new AbortController();
    const credential = service.forJob('default', credentialId, {
      humanInTheLoop,
      signal: controller.signal,
      log: () => undefined,
      ask: async (question) => {
        asked.push(question);
        return answer;
      },
    });
    if (!credential) throw new Error('credential not found');
    return { credential, controller };
  };

  it('the TOTP code follows the injected clock: the next one when under 5 s remain, the current one otherwise', async () => {
    const epoch = Date.parse('2100-01-01T00:00:00.000Z') / 1000;
    expect(await job(false).credential.totp()).toBe(codeAt(epoch + 30));
    clock.advance(14_000); // 10 s into the next step
    expect(await job(false).credential.totp()).toBe(codeAt(epoch + 30));
    expect(redactor.redact(`typed ${codeAt(epoch + 30)}`)).toBe('typed [redacted]');
  });

  it('a code pushed for the phone number reaches the waiting job at once', async () => {
    const waiting = job(false).credential.receivedCode();
    await settle();
    expect(service.pushCode('team', { phone_number_id: phoneId, message: 'Your Bank code: 731 904' })).toEqual({
      accepted: true,
      delivered_to_jobs: 1,
    });
    expect(await waiting).toBe('731904');
  });

  it('no code within 60 s: with human_in_the_loop the job asks for it, not a moment before', async () => {
    const asked: AgentQuestion[] = [];
    const waiting = job(true, asked, 'the code is 55 66 77').credential.receivedCode();
    await settle();
    clock.advance(59_999);
    await settle();
    expect(asked).toEqual([]);
    clock.advance(1);
    expect(await waiting).toBe('556677');
    expect(asked).toEqual([
      {
        question: 'Enter the verification code sent for Bank',
        options: [],
        message: expect.stringContaining('within 60 s'),
        secret: true,
      },
    ]);
  });

  it('no code within 60 s and no human in the loop: the job fails saying why', async () => {
    const waiting = job(false).credential.receivedCode();
    const failed = expect(waiting).rejects.toThrow(
      /No verification code for 'Bank' arrived within 60 s.*human_in_the_loop is off/,
    );
    await settle();
    clock.advance(60_000);
    await failed;
  });

  it('a cancelled job stops waiting with the cancel reason', async () => {
    const { credential, controller } = job(true);
    const waiting = credential.receivedCode();
    controller.abort(new Error('cancelled by the user'));
    await expect(waiting).rejects.toThrow('cancelled by the user');
  });

  it('a registered code source (as the Gmail reader will be) wins the wait; the push inbox then stops waiting', async () => {
    let deliver: (code: string) => void = () => undefined;
    const mailbox: CodeSource = {
      name: 'test-mailbox',
      next: (credential, sinceIso, signal) =>
        new Promise((resolve) => {
          expect(credential.id).toBe(credentialId);
          expect(sinceIso).toBe(clock.now().toISOString());
          deliver = resolve;
          signal.addEventListener('abort', () => resolve(undefined), { once: true });
        }),
    };
    service.codeWaiter.register(mailbox);
    expect(service.codeWaiter.sourceNames).toEqual(['pushed', 'test-mailbox']);
    const waiting = job(false).credential.receivedCode();
    await settle();
    deliver('246810');
    expect(await waiting).toBe('246810');
    // Nobody waits any more: a late push is kept for the next wait, not handed to this job.
    expect(service.pushCode('team', { credential_id: credentialId, code: '999999' }).delivered_to_jobs).toBe(0);
  });
});

describe('reading a code out of an SMS or mail text', () => {
  it('finds the 4–8 digit code, spaced or not, and ignores dates and phone numbers when a code is announced', () => {
    expect(codeFromMessage('Your verification code is 123456')).toBe('123456');
    expect(codeFromMessage('G-482913 is your Google verification code')).toBe('482913');
    expect(codeFromMessage('Code: 12 34 56. Sent 2026-11-23')).toBe('123456');
    expect(codeFromMessage('Call +1 555 0100 if this was not you. Your one-time PIN: 9876')).toBe('9876');
    expect(codeFromMessage('7788')).toBe('7788');
    expect(codeFromMessage('no code here')).toBeUndefined();
    expect(codeFromMessage('123')).toBeUndefined();
  });
});
