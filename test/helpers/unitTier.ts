// Setup file of the `unit` test project (vitest.config.ts): a unit test starts no browser, no service,
// no child process and no worker, and opens no socket. Each of those throws here, naming the rule, so a
// file marked `// tier: unit` that starts one fails at once instead of quietly making the tier slow.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

const RULE =
  'unit tests start no browser, service, child process, worker or socket (test/helpers/unitTier.ts); ' +
  "remove the file's `// tier: unit` line to run it with the e2e project";

function refuse(what: string): never {
  throw new Error(`${what} refused: ${RULE}`);
}

for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const) {
  Object.defineProperty(childProcess, name, {
    value: () => refuse(`child_process.${name}`),
    configurable: true,
    writable: true,
  });
}
net.Server.prototype.listen = function listen(): never {
  refuse('net.Server.listen');
};
net.Socket.prototype.connect = function connect(): never {
  refuse('net.Socket.connect');
};
Object.defineProperty(workerThreads, 'Worker', {
  value: class RefusedWorker {
    constructor() {
      refuse('new Worker');
    }
  },
  configurable: true,
  writable: true,
});
syncBuiltinESMExports();
