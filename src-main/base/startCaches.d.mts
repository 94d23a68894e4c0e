/** Turns on Node's compile cache and a cache of our stripped TypeScript (startCaches.mjs); idempotent. */
export function enableStartCaches(): void;
