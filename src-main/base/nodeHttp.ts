import type * as Http from 'node:http';

/**
 * `node:http` without its ES-module facade. `import { request } from 'node:http'` makes Node read every
 * export of the module to build the facade, and reading the lazy `WebSocket`, `MessageEvent`, … getters
 * loads undici (fetch, WebSocket): ~100 built-in modules and 25-30 ms of every start, for nothing the
 * service needs before it listens (docs/performance.md, "Start-up"). Code that runs at start imports
 * Node's HTTP functions from here; type-only imports from `node:http` cost nothing.
 */
const http: typeof Http = process.getBuiltinModule('node:http');

export const { Agent, createServer, request, STATUS_CODES } = http;
