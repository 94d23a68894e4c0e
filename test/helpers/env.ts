/**
 * Sets environment variables for a file's run (`undefined` removes one) and returns what puts the
 * previous values back: call it in afterAll. A variable a file leaves set would reach the next file
 * run in the same worker (PORTICO_TEST_SHARED_WORKERS=1, vitest.config.ts), e.g. a provider's base
 * URL pointing at a model server that file has closed.
 */
export function setEnv(values: Record<string, string | undefined>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (entries: Record<string, string | undefined>): void => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  return () => apply(previous);
}
