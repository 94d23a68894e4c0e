import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src-main/base/logger.ts';

// The redactor keeps its forms sorted longest first from one add to the next (not sorted again per string):
// each add must still reach every later line, and a secret that contains another is replaced whole.
describe('SecretRedactor', () => {
  it('a secret added later is redacted from then on; the longer of two overlapping secrets is replaced whole', () => {
    const redactor = new SecretRedactor();
    expect(redactor.redact('token hunter22-extra here')).toBe('token hunter22-extra here');
    redactor.add('hunter22');
    expect(redactor.redact('token hunter22-extra here')).toBe('token [redacted]-extra here');
    redactor.add('hunter22-extra');
    expect(redactor.redact('token hunter22-extra here, hunter22 there')).toBe(
      'token [redacted] here, [redacted] there',
    );
    // Adding a secret already known changes nothing.
    redactor.add('hunter22');
    expect(redactor.redactJson({ key: ['hunter22-extra', 'x'] })).toEqual({ key: ['[redacted]', 'x'] });
  });
});
