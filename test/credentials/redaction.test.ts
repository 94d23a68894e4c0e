// tier: unit
import { describe, expect, it } from 'vitest';
import { createLogger, redactingLogger, SecretRedactor, secretEncodings } from '../../src-main/base/logger.ts';

const SECRET = 'p@ss w0rd/"ü"+=&?';

describe('the logger redacts every encoding of a known secret', () => {
  const forms = {
    raw: SECRET,
    url: encodeURIComponent(SECRET),
    form: encodeURIComponent(SECRET).replace(/%20/g, '+'),
    json: JSON.stringify(SECRET).slice(1, -1),
    base64: Buffer.from(SECRET).toString('base64'),
    base64url: Buffer.from(SECRET).toString('base64url'),
  };

  it('lists raw, URL-encoded, JSON-escaped and base64 forms', () => {
    expect(secretEncodings(SECRET)).toEqual(expect.arrayContaining(Object.values(forms)));
  });

  it('a log line, its fields (nested, in arrays, as keys) and an Error field never show any form', () => {
    const lines: string[] = [];
    const redactor = new SecretRedactor();
    const logger = redactingLogger(
      createLogger('debug', (line) => void lines.push(line)),
      redactor,
    );
    redactor.add(SECRET);
    for (const [name, form] of Object.entries(forms)) {
      logger.info(`login with ${form} (${name})`, {
        body: `password=${form}`,
        nested: { list: [form], [form]: 1 },
        error: new Error(`bad ${form}`),
      });
    }
    logger.warn('Authorization header', { header: `Basic ${forms.base64}` });
    const text = lines.join('');
    for (const form of Object.values(forms)) expect(text).not.toContain(form);
    expect(text).toContain('login with [redacted] (raw)');
    expect(text).toContain('[redacted] (base64)');
    expect(lines).toHaveLength(Object.keys(forms).length + 1);
  });

  it('values too short to be told from ordinary text (under 4 characters) are not tracked', () => {
    const redactor = new SecretRedactor();
    redactor.add('abc');
    expect(redactor.redact('abc def')).toBe('abc def');
  });
});
