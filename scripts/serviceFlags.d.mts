/** Node's flags for the service process (`npm run serve` and the benches that start it). */
export declare const SERVICE_NODE_FLAGS: readonly string[];
