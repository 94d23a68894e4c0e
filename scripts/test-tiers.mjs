// The two test tiers (vitest.config.ts). A test file is in the `unit` tier when one of its first
// lines is `// tier: unit`: it then runs under test/helpers/unitTier.ts, which refuses browsers,
// services, child processes, workers and sockets. Every other test file is `e2e`.
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const UNIT_MARKER = '// tier: unit';
const TEST_FILE = /\.test\.tsx?$/;

function head(path) {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(512);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function testFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'fixtures' && entry.name !== 'node_modules') files.push(...testFiles(path));
    } else if (TEST_FILE.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

/** The unit tier's files, relative to `root` with forward slashes, sorted. */
export function unitTestFiles(root) {
  return testFiles(join(root, 'test'))
    .filter((path) =>
      head(path)
        .split('\n', 8)
        .some((line) => line.trim() === UNIT_MARKER),
    )
    .map((path) => relative(root, path).split('\\').join('/'))
    .sort();
}
