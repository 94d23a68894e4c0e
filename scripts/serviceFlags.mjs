// Node's flags for the service process: `npm run serve` (scripts/bootstrap.mjs) starts scripts/serve.mjs
// with them, and the benches that start the service as a user does pass the same (bench/startup, idle).
//
// --max-semi-space-size=2 (MB): V8 grows its young generation to 2 × 16 MB semi-spaces once start-up has
// allocated a lot, and the pages stay resident: ~20 MB of the service's RSS at `listening`, and idle
// (docs/performance.md, "Service RSS"). 2 MB semi-spaces keep it at ~6 MB.
export const SERVICE_NODE_FLAGS = Object.freeze(['--max-semi-space-size=2']);
