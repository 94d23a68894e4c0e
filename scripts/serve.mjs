// `npm run serve`'s entry (through bootstrap.mjs): turns the start caches on before the first TypeScript
// module, so a warm start never loads Node's type stripper, then runs src-main/serve.ts (docs/performance.md).
import { enableStartCaches } from '../src-main/base/startCaches.mjs';

enableStartCaches();
await import('../src-main/serve.ts');
