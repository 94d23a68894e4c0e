import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = import.meta.dirname;

// The engine imports with `.ts` extensions (it also runs unbuilt under Node's type stripping);
// Vite resolves those paths as written, so no alias is needed — only the extension list below.
const extensions = ['.ts', '.tsx', '.mjs', '.js', '.json'];

/** Recompiles the in-page scripts (src-main/agent/injected/ → generated/scripts.ts) before the main bundle reads them. */
const injectedScripts = {
  name: 'portico-injected-scripts',
  buildStart(): void {
    const result = spawnSync(process.execPath, [resolve(root, 'scripts/build-injected.mjs')], {
      cwd: root,
      stdio: 'inherit',
    });
    if (result.status !== 0)
      throw new Error(`scripts/build-injected.mjs failed (exit ${result.status ?? result.signal})`);
  },
};

/**
 * The document read worker thread (src-main/engine/documents/readWorker.ts) as its own self-contained bundle,
 * out/main/readWorker.js beside index.js (engine/documents/workerReading.ts finds it there). A second input of
 * the main build would move the modules both share into a chunk that index.js then imports.
 */
const readWorker = {
  name: 'portico-read-worker',
  apply: 'build' as const,
  async closeBundle(): Promise<void> {
    const { build } = await import('vite');
    await build({
      configFile: false,
      logLevel: 'warn',
      resolve: { extensions },
      build: {
        ssr: resolve(root, 'src-main/engine/documents/readWorker.ts'),
        outDir: resolve(root, 'out/main'),
        emptyOutDir: false,
        target: 'node22',
        minify: false,
        rollupOptions: { output: { format: 'es', entryFileNames: 'readWorker.js' } },
      },
    });
  },
};

export default defineConfig({
  main: {
    plugins: [injectedScripts, readWorker],
    resolve: { extensions },
    build: {
      outDir: resolve(root, 'out/main'),
      externalizeDeps: true,
      rollupOptions: { input: { index: resolve(root, 'src-main/index.ts') } },
    },
  },
  preload: {
    resolve: { extensions },
    build: {
      outDir: resolve(root, 'out/preload'),
      externalizeDeps: true,
      rollupOptions: {
        input: { index: resolve(root, 'src-preload/index.ts') },
        // A sandboxed preload cannot be an ES module.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    plugins: [react()],
    resolve: { extensions },
    build: {
      outDir: resolve(root, 'out/renderer'),
      minify: true,
      emptyOutDir: true,
      rollupOptions: { input: { index: resolve(root, 'src-renderer/index.html') } },
    },
  },
});
