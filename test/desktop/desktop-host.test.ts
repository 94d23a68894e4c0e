import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bridgeArgument, bridgeArguments, parseBridgeArguments } from '../../src-preload/bridge.ts';

// The Electron binary is not downloaded here, so these tests check what Electron would load:
// the bridge's parsing, the built preload run against a stand-in `electron`, and the main bundle's imports.
const root = fileURLToPath(new URL('../../', import.meta.url));
const packageJson = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { dependencies: Record<string, string> };

describe('preload bridge (src-preload/bridge.ts)', () => {
  it("reads back exactly what the main process passes, ignoring Chromium's own arguments", () => {
    const argv = [
      '/opt/Portico/portico',
      '--type=renderer',
      ...bridgeArguments({ apiBaseUrl: 'http://127.0.0.1:8787', consoleToken: 'ct_a=b+c/d' }),
      '--enable-sandbox',
    ];
    const bridge = parseBridgeArguments(argv);
    expect(bridge).toEqual({ apiBaseUrl: 'http://127.0.0.1:8787', consoleToken: 'ct_a=b+c/d' });
    expect(Object.keys(bridge)).toEqual(['apiBaseUrl', 'consoleToken']);
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('missing arguments become empty strings (the console then asks for its URL)', () => {
    expect(parseBridgeArguments(['electron', '--type=renderer'])).toEqual({ apiBaseUrl: '', consoleToken: '' });
    expect(parseBridgeArguments([`${bridgeArgument.consoleToken}ct_only`])).toEqual({
      apiBaseUrl: '',
      consoleToken: 'ct_only',
    });
  });
});

describe('electron-vite build output (out/)', () => {
  it('the built preload exposes only {apiBaseUrl, consoleToken} as window.portico and requires only electron', () => {
    const code = readFileSync(`${root}out/preload/index.cjs`, 'utf8');
    const required: string[] = [];
    const exposed: Record<string, unknown> = {};
    const fakeRequire = (name: string): unknown => {
      required.push(name);
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require '${name}'`);
      return { contextBridge: { exposeInMainWorld: (key: string, value: unknown) => (exposed[key] = value) } };
    };
    const argv = ['electron', ...bridgeArguments({ apiBaseUrl: 'http://127.0.0.1:5000', consoleToken: 'ct_x' })];
    new Function('require', 'process', 'module', 'exports', code)(fakeRequire, { argv }, { exports: {} }, {});
    expect(required).toEqual(['electron']);
    expect(Object.keys(exposed)).toEqual(['portico']);
    expect(exposed.portico).toEqual({ apiBaseUrl: 'http://127.0.0.1:5000', consoleToken: 'ct_x' });
  });

  it('out/main/index.js imports only Node built-ins, electron and runtime dependencies (nothing dev-only, no sources)', () => {
    // The bundle and the chunks it loads on first use (lazy imports split into out/main/chunks/): every
    // relative import must stay inside out/main and exist; every other one must be a built-in, electron or
    // a runtime dependency.
    const mainDir = resolvePath(`${root}out/main`);
    const specifiers = new Set<string>();
    const offenders: string[] = [];
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, 'utf8');
      for (const m of code.matchAll(
        /^\s*import\s[^'"]*?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/gm,
      )) {
        const specifier = m[1] ?? m[2] ?? m[3] ?? '';
        if (!specifier.startsWith('.')) {
          specifiers.add(specifier);
          continue;
        }
        const target = resolvePath(dirname(file), specifier);
        if (!target.startsWith(`${mainDir}/`) || !existsSync(target)) offenders.push(`${specifier} (from ${file})`);
        else visit(target);
      }
    };
    visit(join(mainDir, 'index.js'));
    expect(specifiers.size).toBeGreaterThan(5);
    const builtins = new Set(builtinModules);
    const packageOf = (s: string): string =>
      s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s);
    offenders.push(
      ...[...specifiers].filter(
        (s) =>
          !(s.startsWith('node:') || builtins.has(s) || s === 'electron' || packageOf(s) in packageJson.dependencies),
      ),
    );
    expect(offenders).toEqual([]);
    expect(specifiers.has('electron')).toBe(true);
  });
});
