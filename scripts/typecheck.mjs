#!/usr/bin/env node
// `npm run typecheck` (and the typecheck step of `npm test`): three TypeScript programs, run at once.
//
//   tsconfig.json       everything (sources, tests, bench, scripts) with both the DOM and Node types
//   tsconfig.node.json  the engine, hosts and scripts with Node types and NO DOM library: code written
//                       for a web page fails to compile outside src-main/agent/injected/
//   tsconfig.dom.json   the page code (src-main/agent/injected/, src-renderer/) with the DOM and NO
//                       Node types: a Node builtin, `process` or `Buffer` fails to compile there
//
// `inlinePageCode` once listed the engine files still holding page code inline (a callback to
// Playwright's evaluate), whose Node-program errors were tolerated until it moved into
// src-main/agent/injected/; a listed file that compiled without the DOM had to leave it. It is empty
// now: every error of the Node program fails, and the list is not to grow again.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', '.bin', 'tsc');

/** Engine files with inline page code still to move into src-main/agent/injected/: none (it only shrinks). */
export const inlinePageCode = [];

export const projects = ['tsconfig.json', 'tsconfig.node.json', 'tsconfig.dom.json'];

/** Runs tsc on one project: its exit code and output. */
export function runTsc(project, extraArgs = []) {
  return new Promise((resolve) => {
    const child = spawn(tsc, ['-p', project, '--pretty', 'false', ...extraArgs], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => resolve({ code: 1, output: `could not run tsc: ${error.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** tsc's errors, each with its file and its whole text (continuation lines included). */
export function parseErrors(output) {
  const errors = [];
  for (const line of output.split('\n')) {
    const match = /^(.+?)\(\d+,\d+\): error /.exec(line);
    if (match) errors.push({ file: match[1].replaceAll('\\', '/'), text: line });
    else if (line.trim() !== '' && errors.length > 0) errors.at(-1).text += `\n${line}`;
    else if (line.trim() !== '') errors.push({ file: '', text: line });
  }
  return errors;
}

/** The Node program's verdict: errors outside the list fail, and so does a listed file with none. */
export function judgeNodeProgram(errors, listed = inlinePageCode) {
  const problems = errors.filter((e) => !listed.includes(e.file)).map((e) => e.text);
  const stillInline = new Set(errors.map((e) => e.file));
  for (const file of listed) {
    if (!stillInline.has(file))
      problems.push(`${file} compiles without the DOM now: take it off inlinePageCode in scripts/typecheck.mjs`);
  }
  return problems;
}

async function main() {
  const results = await Promise.all(projects.map((project) => runTsc(project)));
  let failed = false;
  projects.forEach((project, i) => {
    const { code, output } = results[i];
    if (project === 'tsconfig.node.json') {
      const problems = judgeNodeProgram(parseErrors(output));
      if (problems.length === 0) return;
      failed = true;
      process.stderr.write(
        `${project} (no DOM library: page code belongs in src-main/agent/injected/):\n${problems.join('\n')}\n`,
      );
      return;
    }
    if (code === 0) return;
    failed = true;
    process.stderr.write(`${project}:\n${output}`);
  });
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
