// The import rules of docs/architecture.md, enforced by dependency-cruiser (`npm run check:imports`,
// part of `npm test`). Run: npx depcruise --config .dependency-cruiser.cjs src-main src-preload src-renderer
//
// TypeScript is parsed with swc (`parser: 'swc'`, @swc/core): dependency-cruiser cannot drive
// TypeScript 7's compiler. swc keeps `import type` (and `import { type A }`) edges in the graph with
// the `type-only` dependency type, which the rules below rely on; `.ts` specifiers resolve as files.
// Known violations (code that breaks the intent today; counted in every run's summary and listed in
// docs/decisions.md) live in .dependency-cruiser-known-violations.json; regenerate it only to remove
// entries: `npx depcruise-baseline --config .dependency-cruiser.cjs src-main src-preload src-renderer`.

/**
 * src-main folder → the other src-main folders it may import. Do not relax these rules. The table of
 * ../shared/design/architecture.md, plus what the code needs today (engine → llm, webhooks → secrets,
 * api → browser and webhooks, cli → base, contract, webhooks); secrets and api were tightened to it.
 */
const allowedFolders = {
  contract: [],
  base: ['contract'],
  store: ['base', 'contract'],
  secrets: ['base'],
  browser: ['base', 'contract'],
  llm: ['base', 'contract', 'secrets'],
  agent: ['browser', 'llm', 'store', 'base', 'contract'],
  engine: ['agent', 'browser', 'store', 'secrets', 'base', 'contract', 'llm'],
  webhooks: ['engine', 'store', 'base', 'contract', 'secrets'],
  api: ['engine', 'store', 'contract', 'base', 'browser', 'webhooks', 'mcp'],
  cli: ['store', 'secrets', 'engine', 'base', 'contract', 'webhooks', 'mcp'],
  // The MCP tools speak the HTTP API through the contract's client: never the engine or the data folder.
  mcp: ['contract', 'base'],
  desktop: '*',
};

/**
 * npm package → the only places (path regexes) that may import it, type-only imports included unless
 * `typesAlsoFrom` widens them. Packages not listed here are free for src-main (never the renderer).
 */
const packageOwners = [
  { name: 'model-sdks-only-in-llm', packages: ['@anthropic-ai/sdk', 'openai'], from: ['^src-main/llm/'] },
  { name: 'sqlite-only-in-store', packages: ['better-sqlite3'], from: ['^src-main/store/'] },
  { name: 'keyring-only-in-secrets', packages: ['@napi-rs/keyring'], from: ['^src-main/secrets/'] },
  { name: 'fastify-only-in-api', packages: ['fastify', '@fastify/[^/]+'], from: ['^src-main/api/'] },
  {
    name: 'ajv-only-in-json-schema-service',
    packages: ['ajv', 'ajv-formats'],
    from: ['^src-main/base/jsonSchema\\.ts$'],
  },
  // Patterns written by someone else run on RE2 (linear time) through one module.
  { name: 're2js-only-in-linear-regexp', packages: ['re2js'], from: ['^src-main/base/linearRegExp\\.ts$'] },
  { name: 'otp-only-in-agent', packages: ['otplib'], from: ['^src-main/agent/'] },
  { name: 'skill-archive-packages-only-in-engine', packages: ['yauzl', 'yaml'], from: ['^src-main/engine/'] },
  // OCR (tesseract.js, its npm-installed English data) and page rendering (@napi-rs/canvas) serve document reading only.
  {
    name: 'ocr-only-in-documents',
    packages: ['tesseract.js', '@tesseract.js-data/[^/]+', '@napi-rs/canvas'],
    from: ['^src-main/engine/documents/'],
  },
  {
    name: 'mcp-sdk-only-in-mcp-and-api',
    packages: ['@modelcontextprotocol/sdk'],
    from: ['^src-main/mcp/', '^src-main/api/'],
  },
  { name: 'zip-writer-only-in-api-and-engine', packages: ['yazl'], from: ['^src-main/api/', '^src-main/engine/'] },
  // Playwright runs in browser/; the folders that may use browser/ may name its types (Page, BrowserContext).
  {
    name: 'playwright-only-in-browser',
    packages: ['playwright-core'],
    from: ['^src-main/browser/'],
    typesAlsoFrom: ['^src-main/agent/', '^src-main/engine/', '^src-main/api/'],
  },
  { name: 'react-only-in-renderer', packages: ['react', 'react-dom', 'zustand'], from: ['^src-renderer/'] },
];

/** Contract modules the console may import as values (the typed API client: no schemas, no zod values). */
const rendererRuntimeContract = '^src-main/contract/(client|generated/operationRoutes|orchestrators)\\.ts$';

/** The only npm packages the console (a browser bundle) may import. */
const rendererPackages = ['react', 'react-dom', 'zustand'];

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const packagePath = (names) =>
  `(^|/)node_modules/(${names.map((name) => (name.includes('[') ? name : escapeRegex(name))).join('|')})/`;
const notNpmOrCore = ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'];
const describe = (rule) => (rule.length === 0 ? 'itself' : `itself, ${rule.map((folder) => `${folder}/`).join(', ')}`);

/**
 * All page code lives in src-main/agent/injected/ (built by scripts/build-injected.mjs); its engine-side
 * face, injected/index.ts (the scripts as typed functions and texts, no DOM type), is also open to these
 * folders: browser/ (the recording mask) and api/ (the live-view page).
 */
const pageCodeFace = '^src-main/agent/injected/index\\.ts$';
const pageCodeUsers = ['browser', 'api'];

const folderRules = Object.entries(allowedFolders)
  .filter(([, rule]) => rule !== '*')
  .map(([folder, rule]) => ({
    name: `folder-${folder}`,
    comment: `src-main/${folder}/ may import only ${describe(rule)}${pageCodeUsers.includes(folder) ? ' and agent/injected/index.ts' : ''} (docs/architecture.md)`,
    severity: 'error',
    from: { path: `^src-main/${folder}/` },
    to: {
      pathNot: [
        `^src-main/(${[folder, ...rule].join('|')})/`,
        ...(pageCodeUsers.includes(folder) ? [pageCodeFace] : []),
      ],
      dependencyTypesNot: notNpmOrCore,
    },
  }));

const packageRules = packageOwners.flatMap(({ name, packages, from, typesAlsoFrom }) => {
  const owners = from.join(' or ');
  const rule = {
    name,
    comment: `only ${owners} may import ${packages.join(', ')}`,
    severity: 'error',
    from: { pathNot: [...from, ...(typesAlsoFrom ?? [])] },
    to: { path: packagePath(packages) },
  };
  if (typesAlsoFrom === undefined) return [rule];
  return [
    rule,
    {
      name: `${name}-types-only`,
      comment: `${typesAlsoFrom.join(', ')} may import ${packages.join(', ')} types only (use \`import type\`)`,
      severity: 'error',
      from: { path: typesAlsoFrom },
      to: { path: packagePath(packages), dependencyTypesNot: ['type-only'] },
    },
  ];
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'electron-only-in-hosts',
      comment:
        'only src-main/desktop/, src-main/index.ts and src-preload/ may import electron: the engine runs under plain Node',
      severity: 'error',
      from: { pathNot: ['^src-main/desktop/', '^src-main/index\\.ts$', '^src-preload/'] },
      to: { path: packagePath(['electron']) },
    },
    {
      name: 'folder-not-in-table',
      comment: 'every src-main/ folder needs a row in the import table (.dependency-cruiser.cjs, docs/architecture.md)',
      severity: 'error',
      from: { path: '^src-main/[^/]+/', pathNot: `^src-main/(${Object.keys(allowedFolders).join('|')})/` },
      to: {},
    },
    ...folderRules,
    {
      name: 'main-not-to-renderer',
      comment: 'src-main/ may not import src-renderer/: the console is a separate browser bundle',
      severity: 'error',
      from: { path: '^src-main/' },
      to: { path: '^src-renderer/' },
    },
    {
      name: 'contract-zod-only',
      comment:
        'src-main/contract/ is shared with the renderer: it may import zod only (no Node builtins, no other packages)',
      severity: 'error',
      from: { path: '^src-main/contract/' },
      to: { dependencyTypes: notNpmOrCore, pathNot: packagePath(['zod']) },
    },
    {
      name: 'renderer-contract-types-only',
      comment:
        'src-renderer/ may import src-main/contract types only (use `import type`), the zod-free typed API client aside',
      severity: 'error',
      from: { path: '^src-renderer/' },
      to: { path: '^src-main/contract/', pathNot: rendererRuntimeContract, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderer-runtime-contract-types-only',
      comment:
        'the typed API client is bundled into the console: it imports zod and other contract modules as types only',
      severity: 'error',
      from: { path: rendererRuntimeContract },
      to: { pathNot: rendererRuntimeContract, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderer-only-contract',
      comment: 'src-renderer/ may import src-main/contract types only: nothing else of src-main/',
      severity: 'error',
      from: { path: '^src-renderer/' },
      to: { path: '^src-main/', pathNot: '^src-main/contract/' },
    },
    {
      name: 'renderer-preload-types-only',
      comment: 'src-renderer/ may import src-preload/ types only (the bridge is reached through window)',
      severity: 'error',
      from: { path: '^src-renderer/' },
      to: { path: '^src-preload/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'injected-self-contained',
      comment:
        'src-main/agent/injected/ runs inside web pages (bundled by scripts/build-injected.mjs): it may import only itself, no packages, no Node builtins',
      severity: 'error',
      from: { path: '^src-main/agent/injected/' },
      to: { pathNot: '^src-main/agent/injected/' },
    },
    {
      name: 'renderer-no-node-builtins',
      comment: 'src-renderer/ runs in a browser: no Node builtins',
      severity: 'error',
      from: { path: '^src-renderer/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'renderer-own-packages-only',
      comment: `src-renderer/ may import only these npm packages: ${rendererPackages.join(', ')}`,
      severity: 'error',
      from: { path: '^src-renderer/' },
      to: { dependencyTypes: notNpmOrCore.filter((type) => type !== 'core'), pathNot: packagePath(rendererPackages) },
    },
    {
      name: 'preload-electron-and-contract-types-only',
      comment: 'src-preload/ may import electron and src-main/contract types only',
      severity: 'error',
      from: { path: '^src-preload/' },
      to: {
        pathNot: ['^src-preload/', '^src-main/contract/', packagePath(['electron'])],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'preload-contract-types-only',
      comment: 'src-preload/ may import src-main/contract types only (use `import type`)',
      severity: 'error',
      from: { path: '^src-preload/' },
      to: { path: '^src-main/contract/', dependencyTypesNot: ['type-only'] },
    },
    ...packageRules,
    {
      name: 'no-dev-dependencies-at-runtime',
      comment:
        'src-main/ runs from source on a production install: runtime imports must be dependencies, not devDependencies',
      severity: 'error',
      from: { path: '^src-' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: packagePath(['electron']) },
    },
    {
      name: 'no-undeclared-packages',
      comment: 'every imported package is declared in package.json',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that does not resolve cannot be checked',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
