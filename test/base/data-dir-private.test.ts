// tier: unit
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { securePrivateDataRoot, tightenDataDir } from '../../src-main/base/paths.ts';

const root = mkdtempSync(join(tmpdir(), 'portico-private-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string): number => lstatSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')(
  'the data folder is private: the folder before listening, what is inside it after (base/paths.ts)',
  () => {
    it('securePrivateDataRoot makes the folder 0700 and leaves what is inside for the walk', () => {
      const dataDir = join(root, 'data');
      mkdirSync(join(dataDir, 'artifacts'), { recursive: true, mode: 0o755 });
      chmodSync(dataDir, 0o755);
      chmodSync(join(dataDir, 'artifacts'), 0o755);
      expect(securePrivateDataRoot(dataDir)).toEqual([]);
      expect(mode(dataDir)).toBe(0o700);
      expect(mode(join(dataDir, 'artifacts'))).toBe(0o755);
    });

    it('tightenDataDir makes every folder 0700 and every file at most 0600 (no group or other access), leaves symbolic links', async () => {
      const dataDir = join(root, 'walk');
      const deep = join(dataDir, 'artifacts', 'old-job', 'screenshots');
      mkdirSync(deep, { recursive: true });
      for (const dir of [dataDir, join(dataDir, 'artifacts'), join(dataDir, 'artifacts', 'old-job'), deep])
        chmodSync(dir, 0o755);
      writeFileSync(join(deep, 'screenshot_0000.png'), 'png');
      chmodSync(join(deep, 'screenshot_0000.png'), 0o644);
      writeFileSync(join(dataDir, 'settings.json'), '{}');
      chmodSync(join(dataDir, 'settings.json'), 0o640);
      writeFileSync(join(dataDir, 'run.sh'), '');
      chmodSync(join(dataDir, 'run.sh'), 0o755);
      const outside = join(root, 'outside.txt');
      writeFileSync(outside, 'not ours');
      chmodSync(outside, 0o644);
      symlinkSync(outside, join(dataDir, 'link'));

      expect(await tightenDataDir(dataDir)).toEqual([]);
      expect(mode(deep)).toBe(0o700);
      expect(mode(join(dataDir, 'artifacts'))).toBe(0o700);
      expect(mode(join(deep, 'screenshot_0000.png'))).toBe(0o600);
      expect(mode(join(dataDir, 'settings.json'))).toBe(0o600);
      expect(mode(join(dataDir, 'run.sh'))).toBe(0o600);
      expect(mode(outside)).toBe(0o644);
    });

    it('tightenDataDir reports what it cannot read and goes on', async () => {
      const missing = join(root, 'gone');
      expect(await tightenDataDir(missing)).toEqual([missing]);
    });
  },
);
