// tier: unit
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { unitTestFiles } from '../../scripts/test-tiers.mjs';

const root = join(import.meta.dirname, '..', '..');

describe('test tiers (vitest.config.ts projects unit and e2e)', () => {
  it('the unit tier is the files marked `// tier: unit`, this one among them', () => {
    const unit = unitTestFiles(root);
    expect(unit).toContain('test/tooling/test-tiers.test.ts');
    expect(unit).toContain('test/base/clock.test.ts');
    // A file that starts a service is not in it.
    expect(unit).not.toContain('test/api/portals.test.ts');
    expect(unit.every((path: string) => path.startsWith('test/') && /\.test\.tsx?$/.test(path))).toBe(true);
  });

  it('a unit test that starts a child process, a server or a worker fails naming the rule', () => {
    expect(() => spawn('true')).toThrow(/child_process\.spawn refused: unit tests start no browser/);
    expect(() => execFileSync('true')).toThrow(/child_process\.execFileSync refused/);
    expect(() => createServer().listen(0)).toThrow(/net\.Server\.listen refused/);
    expect(() => new Worker('0', { eval: true })).toThrow(/new Worker refused/);
  });
});
