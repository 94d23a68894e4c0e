// tier: unit
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pinoOf, redactingLogger, SecretRedactor } from '../../src-main/base/logger.ts';
import { logEntries, openServiceLog, RotatingLogFile } from '../../src-main/base/serviceLog.ts';

const root = mkdtempSync(join(tmpdir(), 'portico-service-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PASSWORD = 'p@ss w0rd/"ü"+=&?';
const TOKEN = 'tok_4f9d2c7be1';

function linesOf(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

describe('the service log: pino JSON lines, a rotating file, redaction on the way out', () => {
  it('writes one JSON object a line with time, level and msg; lines under the level are never written', () => {
    const file = join(root, 'levels', 'portico.log');
    const log = openServiceLog('warn', file);
    log.logger.info('not at warn');
    log.logger.warn('disk almost full', { free_mb: 12 });
    log.logger.error('job failed', { job_id: 'job_1' });
    log.close();
    const parsed = linesOf(file).map((line) => JSON.parse(line));
    expect(parsed).toEqual([
      { level: 'warn', time: expect.any(String), msg: 'disk almost full', free_mb: 12 },
      { level: 'error', time: expect.any(String), msg: 'job failed', job_id: 'job_1' },
    ]);
    expect(new Date(parsed[0].time).toISOString()).toBe(parsed[0].time);
    expect(statSync(file).mode & 0o077).toBe(0);
  });

  it('rotates by size: the file becomes .1, .1 becomes .2, the oldest beyond those kept is dropped; the tail reads across them', () => {
    const file = join(root, 'rotation', 'portico.log');
    const rotating = new RotatingLogFile(file, { maxBytes: 200, keep: 2 });
    const written: string[] = [];
    for (let index = 0; index < 40; index += 1) {
      const line = `{"n":${index},"msg":"line number ${String(index).padStart(3, '0')}"}`;
      written.push(line);
      rotating.write(`${line}\n`);
    }
    expect(readdirSync(join(root, 'rotation')).sort()).toEqual(['portico.log', 'portico.log.1', 'portico.log.2']);
    for (const name of ['portico.log', 'portico.log.1', 'portico.log.2'])
      expect(statSync(join(root, 'rotation', name)).size).toBeLessThanOrEqual(200);
    // Nothing lost or reordered in what is kept: the newest lines, in order, ending with the last written.
    const kept = [...linesOf(`${file}.2`), ...linesOf(`${file}.1`), ...linesOf(file)];
    expect(kept).toEqual(written.slice(-kept.length));
    expect(rotating.tail(5)).toEqual(written.slice(-5));
    expect(rotating.tail(1000)).toEqual(kept);
    rotating.close();
    // A new start appends to the same file and rotates from its size.
    const reopened = new RotatingLogFile(file, { maxBytes: 200, keep: 2 });
    reopened.write('{"msg":"after restart"}\n');
    expect(reopened.tail(1)).toEqual(['{"msg":"after restart"}']);
    reopened.close();
  });

  it("secrets, URL secrets and passwords never reach the file — from call sites and from Fastify's own pino — and every line stays JSON", () => {
    const file = join(root, 'redaction', 'portico.log');
    const log = openServiceLog('debug', file);
    const redactor = new SecretRedactor();
    const logger = redactingLogger(log.logger, redactor);
    redactor.add(PASSWORD);
    logger.info(`login with ${PASSWORD}`, {
      body: `password=${encodeURIComponent(PASSWORD)}`,
      nested: { list: [Buffer.from(PASSWORD).toString('base64')], [PASSWORD]: 1 },
      error: new Error(`bad ${JSON.stringify(PASSWORD).slice(1, -1)}`),
    });
    logger.warn(`fetch "https://api.example.com/v1/items?access_token=${TOKEN}&page=2" failed`, {
      url: `https://user:hunter2secret@example.com/login?next=/home&api_key=${TOKEN}`,
    });
    // What Fastify logs goes through the same pino (api/server.ts hands it `pinoOf(logger)`).
    const fastifyPino = pinoOf(logger);
    expect(fastifyPino).toBeDefined();
    fastifyPino?.error(
      { req: { method: 'GET', url: `/portals/acme?token=${TOKEN}` }, err: new Error(`boom ${PASSWORD}`) },
      `request to https://example.com/cb?code=${TOKEN} errored`,
    );
    log.close();
    const text = readFileSync(file, 'utf8');
    const lines = linesOf(file);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    for (const form of [PASSWORD, encodeURIComponent(PASSWORD), Buffer.from(PASSWORD).toString('base64'), TOKEN])
      expect(text).not.toContain(form);
    expect(text).not.toContain(JSON.stringify(PASSWORD).slice(1, -1));
    expect(text).not.toContain('hunter2secret');
    const [login, fetchLine, fastifyLine] = lines.map((line) => JSON.parse(line));
    expect(login.msg).toBe('login with [redacted]');
    expect(login.error).toBe('Error: bad [redacted]');
    expect(fetchLine.msg).toBe('fetch "https://api.example.com/v1/items?access_token=[redacted]&page=2" failed');
    expect(fetchLine.url).toContain('next=/home');
    expect(fastifyLine.req.url).toBe('/portals/acme?token=[redacted]');
    expect(fastifyLine.err.message).toBe('boom [redacted]');
    expect(fastifyLine.msg).toBe('request to https://example.com/cb?code=[redacted] errored');
  });

  it('the tail as entries: a secret learned after a line was written is hidden when shown; a line that is not JSON is shown whole', () => {
    const redactor = new SecretRedactor();
    const entries = logEntries(
      [
        '{"level":"info","time":"2026-11-27T12:00:00.000Z","msg":"seed is JBSWY3DPEHPK3PXP","job_id":"job_9"}',
        'not json at all',
      ],
      redactor,
    );
    expect(entries[0]).toEqual({
      time: '2026-11-27T12:00:00.000Z',
      level: 'info',
      msg: 'seed is JBSWY3DPEHPK3PXP',
      fields: { job_id: 'job_9' },
    });
    redactor.add('JBSWY3DPEHPK3PXP');
    expect(logEntries(['{"level":"info","time":"t","msg":"seed is JBSWY3DPEHPK3PXP"}'], redactor)[0]?.msg).toBe(
      'seed is [redacted]',
    );
    expect(entries[1]).toEqual({ time: null, level: 'unknown', msg: 'not json at all', fields: {} });
  });

  it('serve: lines go to stderr (here a function) and the last ones are kept in memory for the console', () => {
    const written: string[] = [];
    const log = openServiceLog('info', undefined, (line) => void written.push(line));
    for (let index = 0; index < 1005; index += 1) log.logger.info(`line ${index}`);
    expect(written).toHaveLength(1005);
    expect(log.file).toBeNull();
    const tail = log.tail(2000);
    expect(tail).toHaveLength(1000);
    expect(JSON.parse(tail.at(-1) ?? '{}').msg).toBe('line 1004');
    expect(JSON.parse(tail[0] ?? '{}').msg).toBe('line 5');
  });
});
