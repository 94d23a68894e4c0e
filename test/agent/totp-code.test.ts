// tier: unit
import { createGuardrails, generateSync } from 'otplib';
import { describe, expect, it } from 'vitest';
import { totpCode, TOTP_MIN_SECONDS_LEFT } from '../../src-main/agent/model/secretValues.ts';

// 80 bits, the length GitHub and many banks issue (otplib's default guardrail would refuse it).
const SEED = 'JBSWY3DPEHPK3PXP';
// The start of some 30 s TOTP step, in ms.
const STEP_START = 30 * 57_000_000 * 1000;
const codeAt = (epochSeconds: number): string =>
  generateSync({ secret: SEED, epoch: epochSeconds, guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }) });

describe('TOTP codes for totp_code', () => {
  it('uses the current code while at least 5 s of it remain', () => {
    expect(TOTP_MIN_SECONDS_LEFT).toBe(5);
    expect(totpCode(SEED, STEP_START)).toBe(codeAt(STEP_START / 1000));
    expect(totpCode(SEED, STEP_START + 25_000)).toBe(codeAt(STEP_START / 1000));
  });

  it('uses the next code when under 5 s remain', () => {
    const next = codeAt(STEP_START / 1000 + 30);
    expect(next).not.toBe(codeAt(STEP_START / 1000));
    expect(totpCode(SEED, STEP_START + 25_001)).toBe(next);
    expect(totpCode(SEED, STEP_START + 29_999)).toBe(next);
  });

  it('accepts a seed with spaces and lower case, as authenticator setup pages show it', () => {
    expect(totpCode('jbsw y3dp ehpk 3pxp', STEP_START)).toBe(codeAt(STEP_START / 1000));
  });
});
