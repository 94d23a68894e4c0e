#!/usr/bin/env node
// Where a Portico batch's CPU profile goes, per job (docs/performance.md, "Session 12 (engineer svc)"):
//   node bench/cpuProfileOwners.mjs <jobs per profile> <file.cpuprofile>...
// Each sample counts for the nearest Portico frame above it (src-main/<folder>, agent/** as one), else for
// Playwright (a playwright-core frame or the pipe write), the HTTP client (undici, web streams), the garbage
// collector, or "no Portico frame". Then the Portico functions by inclusive time. V8's samples are wall-clock:
// under load they pile up where the process was descheduled (a write that wakes Chromium), so compare shares
// taken in one run, and the process's measured CPU per job, not these milliseconds across loads.
import { readFileSync } from 'node:fs';

const [perProfile, ...files] = process.argv.slice(2);
const jobs = Number(perProfile) * files.length;
if (!(jobs > 0)) {
  process.stderr.write('usage: node bench/cpuProfileOwners.mjs <jobs per profile> <file.cpuprofile>...\n');
  process.exit(2);
}
const byOwner = new Map();
const inclusive = new Map();
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
let busy = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const owners = new Map();
  const ownerOf = (id) => {
    if (owners.has(id)) return owners.get(id);
    const url = nodes.get(id).callFrame.url;
    const folder = /src-main\/(.*)\/[^/]+$/.exec(url)?.[1];
    const up = parent.get(id);
    const owner = folder
      ? folder.startsWith('agent')
        ? 'src-main/agent/**'
        : `src-main/${folder}`
      : up === undefined
        ? undefined
        : ownerOf(up);
    owners.set(id, owner);
    return owner;
  };
  const name = (node) =>
    `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/.*\/src-main\//, 'src-main/')}:${node.callFrame.lineNumber + 1}`;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    const node = nodes.get(id);
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    busy += us;
    let owner = ownerOf(id);
    if (owner === undefined) {
      if (functionName === '(garbage collector)') owner = 'garbage collector';
      else if (/playwright-core/.test(url) || /^(writeUtf8String|writev)$/.test(functionName)) owner = 'Playwright';
      else if (/undici|webstreams/.test(url)) owner = 'HTTP client (fetch)';
      else owner = 'no Portico frame';
    }
    add(byOwner, owner, us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = nodes.get(at);
      if (!frame.callFrame.url.includes('src-main/')) continue;
      const key = name(frame);
      if (!seen.has(key)) add(inclusive, key, us);
      seen.add(key);
    }
  }
}
const ms = (us) => (us / 1000 / jobs).toFixed(1).padStart(7);
process.stdout.write(`busy (not idle) ${ms(busy).trim()} ms per job, by owner:\n`);
for (const [owner, us] of [...byOwner].sort((a, b) => b[1] - a[1]))
  process.stdout.write(`${ms(us)} ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${owner}\n`);
process.stdout.write('Portico functions, inclusive, ms per job:\n');
for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 30))
  process.stdout.write(`${ms(us)}  ${key}\n`);
