import { systemClock, type Clock } from '../../base/clock.ts';
import type { CredentialRow } from '../../store/credentials.ts';
import type { CodeSource } from './codeWaiter.ts';

/** Whom a pushed code is for: any of the credential, its phone number or its username/email. */
export interface CodeAddress {
  credentialId?: string;
  phoneNumberId?: string;
  email?: string;
}

interface PushedCode extends CodeAddress {
  code: string;
  workspaceId: string;
  at: string;
}

/** A pushed code is kept this long for a job that starts waiting just after it arrived. */
const KEEP_MS = 10 * 60_000;

function matches(push: PushedCode, credential: CredentialRow): boolean {
  if (push.workspaceId !== credential.workspace_id) return false;
  if (push.credentialId !== undefined) return push.credentialId === credential.id;
  if (push.phoneNumberId !== undefined) return push.phoneNumberId === credential.phone_number_id;
  return (
    push.email !== undefined &&
    credential.username_or_email !== null &&
    push.email.toLowerCase() === credential.username_or_email.toLowerCase()
  );
}

/** The code source behind POST /public/verification-codes: codes pushed by SMS forwarders, scripts or people. */
export class PushedCodes implements CodeSource {
  readonly name = 'pushed';
  readonly #clock: Clock;
  #codes: PushedCode[] = [];
  readonly #waiters = new Set<{ credential: CredentialRow; since: string; resolve(code: string): void }>();

  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
  }

  /** Hands the code to every job waiting for it and keeps it briefly for one about to wait; returns how many jobs took it. */
  push(workspaceId: string, address: CodeAddress, code: string): number {
    const now = this.#clock.now();
    const push: PushedCode = { ...address, code, workspaceId, at: now.toISOString() };
    const cutoff = new Date(now.getTime() - KEEP_MS).toISOString();
    this.#codes = this.#codes.filter((c) => c.at >= cutoff);
    let delivered = 0;
    for (const waiter of [...this.#waiters]) {
      if (matches(push, waiter.credential)) {
        this.#waiters.delete(waiter);
        waiter.resolve(code);
        delivered += 1;
      }
    }
    if (delivered === 0) this.#codes.push(push);
    return delivered;
  }

  next(credential: CredentialRow, sinceIso: string, signal: AbortSignal): Promise<string | undefined> {
    const kept = this.#codes.filter((c) => c.at >= sinceIso && matches(c, credential)).at(-1);
    if (kept) {
      // Used once: a second login must not type the same code again.
      this.#codes = this.#codes.filter((c) => c !== kept);
      return Promise.resolve(kept.code);
    }
    return new Promise((resolve) => {
      const waiter = { credential, since: sinceIso, resolve: (code: string) => resolve(code) };
      this.#waiters.add(waiter);
      signal.addEventListener(
        'abort',
        () => {
          this.#waiters.delete(waiter);
          resolve(undefined);
        },
        { once: true },
      );
    });
  }
}
