/**
 * Resources released in reverse order of acquisition, each at most once, with every release error
 * collected: the one way Portico rolls back a half-built thing (a session whose insert failed after
 * its browser opened) and shuts a whole thing down (the app). Register a resource the moment it is
 * acquired; on failure, `dispose()` is the whole rollback.
 *
 *     const scope = new Lifecycle('session');
 *     try {
 *       const lock = scope.add(locks.acquire(id), (l) => l.release(), 'profile lock');
 *       const browser = scope.add(await pool.take(spec), (b) => b.close(), 'browser');
 *       store.insert(row);
 *       return scope.keep(); // success: the caller owns the scope's resources from now on
 *     } catch (error) {
 *       await scope.dispose(); // browser closed, then the lock released
 *       throw error;
 *     }
 */

/** How one resource is released; may be async. */
export type Release = () => void | Promise<void>;

/** Thrown by `dispose()` when one or more releases failed; every release was still attempted. */
export class DisposeError extends AggregateError {
  readonly scope: string;

  constructor(scope: string, errors: readonly { resource: string; error: unknown }[]) {
    super(
      errors.map((entry) => entry.error),
      `${scope}: ${errors.length} release(s) failed: ${errors.map((entry) => `${entry.resource} (${describe(entry.error)})`).join('; ')}`,
    );
    this.name = 'DisposeError';
    this.scope = scope;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Entry {
  readonly name: string;
  readonly release: Release;
}

export class Lifecycle {
  readonly #name: string;
  #entries: Entry[] = [];
  #disposing: Promise<void> | undefined;

  constructor(name: string) {
    this.#name = name;
  }

  /** The number of resources held (not yet released). */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * Registers `resource` (already acquired) with its release, and returns it. Registering on a
   * disposed scope releases the resource at once and throws: a late arrival is never leaked.
   */
  add<T>(resource: T, release: (resource: T) => void | Promise<void>, name = 'resource'): T {
    this.defer(() => release(resource), name);
    return resource;
  }

  /** Registers a release with no resource value (a timer to clear, a listener to remove). */
  defer(release: Release, name = 'release'): void {
    if (this.#disposing) {
      void Promise.resolve()
        .then(release)
        .catch(() => {});
      throw new Error(`${this.#name} is already disposed; '${name}' was released at once`);
    }
    this.#entries.push({ name, release });
  }

  /** A nested scope, released (in its place in the order) when this one is. */
  child(name: string): Lifecycle {
    const child = new Lifecycle(`${this.#name}/${name}`);
    this.defer(() => child.dispose(), name);
    return child;
  }

  /**
   * Hands the registered releases over to a new scope (returned) and empties this one: after
   * success, the caller keeps the resources and this scope's `dispose()` releases nothing.
   */
  keep(name = this.#name): Lifecycle {
    const kept = new Lifecycle(name);
    kept.#entries = this.#entries;
    this.#entries = [];
    return kept;
  }

  /**
   * Releases every resource, newest first, each once, even when some fail; then throws a
   * `DisposeError` naming the failures. Calling it again returns the same promise.
   */
  dispose(): Promise<void> {
    this.#disposing ??= this.#releaseAll();
    return this.#disposing;
  }

  async #releaseAll(): Promise<void> {
    const failures: { resource: string; error: unknown }[] = [];
    while (this.#entries.length > 0) {
      const entry = this.#entries.pop() as Entry;
      try {
        // A synchronous release runs in the same tick as the one before it (a live view is gone as soon as
        // dispose() is called, before any awaited close); only a promise is waited for.
        const released = entry.release();
        if (released instanceof Promise) await released;
      } catch (error) {
        failures.push({ resource: entry.name, error });
      }
    }
    if (failures.length > 0) throw new DisposeError(this.#name, failures);
  }
}
