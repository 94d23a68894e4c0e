#!/usr/bin/env node
// The `portico` command: the admin CLI, through the bootstrap (it brings Node 22 and dependencies).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bootstrap = fileURLToPath(new URL('../scripts/bootstrap.mjs', import.meta.url));
const result = spawnSync(process.execPath, [bootstrap, 'cli', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exitCode = result.status ?? 1;
