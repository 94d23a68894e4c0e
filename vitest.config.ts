import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { unitTestFiles } from './scripts/test-tiers.mjs';

const root = dirname(fileURLToPath(import.meta.url));
// Two tiers (scripts/test-tiers.mjs): `unit` — files marked `// tier: unit`, no browser, service, child
// process, worker or socket (enforced by test/helpers/unitTier.ts; `npm run test:unit`) — and `e2e`,
// everything else. `npm test` runs both.
const unit = unitTestFiles(root);

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: unit, setupFiles: ['test/helpers/unitTier.ts'], testTimeout: 10_000 },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...unit, '**/node_modules/**'],
        },
      },
    ],
  },
});
