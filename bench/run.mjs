#!/usr/bin/env node
// Runs every bench/*.bench.ts with this Node (type stripping); each writes its JSON to bench/results/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
// `--flag` arguments go to every benchmark (e.g. `--quick`); the others choose benchmarks by name.
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'));
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const files = readdirSync(benchDir)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort();

if (files.length === 0) {
  process.stderr.write('bench: no bench/*.bench.ts files yet\n');
  process.exit(0);
}

mkdirSync(join(benchDir, 'results'), { recursive: true });
let failed = 0;
for (const name of files) {
  process.stderr.write(`\n▶ ${name}\n`);
  const result = spawnSync(process.execPath, [join(benchDir, name), ...flags], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    process.stderr.write(`✖ ${name} failed (exit ${result.status ?? result.signal})\n`);
  }
}
process.exit(failed > 0 ? 1 : 0);
