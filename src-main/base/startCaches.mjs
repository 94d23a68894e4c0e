// Plain JavaScript on purpose: loading it must not start Node's TypeScript stripper (see below).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { enableCompileCache, getCompileCacheDir, registerHooks, stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

let enabled = false;

/**
 * Warm starts from source compile almost nothing (docs/performance.md, "Start-up"): V8's code cache
 * for every module loaded after this call (Node's compile cache), and the type-stripped text of each
 * of our TypeScript modules, kept by the hash of its source. Node 22 strips every `.ts` file again at
 * every start (its compile cache keeps stripped output only from Node 23): that was a third of the
 * start's CPU, and loading the stripper (WebAssembly) alone costs ~40 ms and ~13 MB. Both caches live
 * in Node's compile-cache folder (the OS temp folder, or NODE_COMPILE_CACHE); one another user could
 * write is not used. Call it before the app is imported; later calls do nothing.
 */
export function enableStartCaches() {
  if (enabled) return;
  enabled = true;
  enableCompileCache?.();
  const base = getCompileCacheDir?.();
  if (base === undefined || typeof registerHooks !== 'function') return;
  const dir = join(base, 'portico-stripped-ts');
  if (!ownPrivateDir(dir)) return;
  registerHooks({
    load(url, context, nextLoad) {
      if (context.format !== 'module-typescript' || !url.startsWith('file:')) return nextLoad(url, context);
      const source = readFileSync(fileURLToPath(url), 'utf8');
      const file = join(dir, `${createHash('sha256').update(source).digest('hex')}.js`);
      let stripped;
      try {
        stripped = readFileSync(file, 'utf8');
      } catch {
        stripped = strip(source);
        // Written whole, then renamed: a start running at the same time never reads half a file.
        const partial = `${file}.${process.pid}.part`;
        try {
          writeFileSync(partial, stripped, { mode: 0o600 });
          renameSync(partial, file);
        } catch {
          // A read-only or full disk: this start strips, and the next one too.
        }
      }
      return { format: 'module', source: stripped, shortCircuit: true };
    },
  });
}

/** `dir` exists (made if needed), belongs to this user, and no one else may write in it. */
function ownPrivateDir(dir) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    const uid = process.getuid?.();
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** What Node itself does to a `.ts` module (strip mode: types become spaces, so lines and columns stay). */
function strip(source) {
  // Node warns that stripTypeScriptTypes is experimental; it is what its own loader runs.
  const emit = process.emitWarning;
  process.emitWarning = () => undefined;
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' });
  } finally {
    process.emitWarning = emit;
  }
}
