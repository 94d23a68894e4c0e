import { randomUUID } from 'node:crypto';
import { Entry } from '@napi-rs/keyring';
import { describe, expect, it } from 'vitest';

describe('the test environment (scripts/run-tests.mjs)', () => {
  it('has an unlocked OS keychain that stores and returns a secret', () => {
    const entry = new Entry('portico-test-environment', randomUUID());
    entry.setPassword('keychain-answers');
    try {
      expect(entry.getPassword()).toBe('keychain-answers');
    } finally {
      entry.deletePassword();
    }
  });
});
