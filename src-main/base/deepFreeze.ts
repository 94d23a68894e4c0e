const deeplyFrozen = new WeakSet<object>();

/** Freezes a JSON-like value and everything in it, so a value shared between readers (a cache) cannot be changed by one of them. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
    deeplyFrozen.add(value);
  }
  return value;
}

/**
 * Whether `value` was frozen whole by deepFreeze (not merely `Object.freeze`d on top): nothing in it can
 * change, so what is derived from it (a response's JSON text, api/routeTable.ts) can be kept with it.
 */
export function isDeepFrozen(value: unknown): value is object {
  return typeof value === 'object' && value !== null && deeplyFrozen.has(value);
}
