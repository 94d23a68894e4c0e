import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS dependency loaded at its first use rather than at start (docs/performance.md, "Start-up"):
 * `const yazl = lazyRequire<typeof import('yazl')>('yazl')`, then `yazl().ZipFile`. Required, not
 * imported, so Node need not scan the package's source for export names first.
 */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(specifier) as T;
    return loaded;
  };
}
