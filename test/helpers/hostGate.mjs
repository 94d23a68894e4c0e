#!/usr/bin/env node
// The front door of a test browser host, run inside its network namespace (test/helpers/netns.ts).
// Chromium binds its debugging port to 127.0.0.1 only, so another machine reaches it through this.
//   --mode tcp       a plain TCP forward: what an operator puts in front of a Chromium debugging host.
//   --mode provider  a CDP provider as Browserless/Steel-style services answer: `?token=` required
//                    (401 otherwise), at most --max-connections live DevTools sockets (429 beyond),
//                    a WebSocket to `/` goes to the browser, and /json/version hands out a URL that
//                    carries the token. The token is stripped before Chromium sees the request.
// Usage: node hostGate.mjs --listen ADDR:PORT --target PORT [--mode tcp|provider] [--token T] [--max-connections N]
// Prints `gate listening on ADDR:PORT` once it accepts connections.
import { request } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';

const options = parseArgs(process.argv.slice(2));
const [listenHost, listenPort] = splitHostPort(options.listen);
const targetPort = Number(options.target);
const mode = options.mode ?? 'tcp';
const token = options.token ?? '';
const maxConnections =
  options['max-connections'] === undefined ? Number.POSITIVE_INFINITY : Number(options['max-connections']);

function parseArgs(args) {
  const out = {};
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i]?.replace(/^--/, '');
    if (!key || args[i + 1] === undefined) throw new Error(`bad argument near ${args[i]}`);
    out[key] = args[i + 1];
  }
  if (!out.listen || !out.target) throw new Error('--listen ADDR:PORT and --target PORT are required');
  return out;
}

function splitHostPort(value) {
  const at = value.lastIndexOf(':');
  return [value.slice(0, at), Number(value.slice(at + 1))];
}

function announce() {
  process.stdout.write(`gate listening on ${listenHost}:${listenPort}\n`);
}

if (mode === 'tcp') {
  const server = createTcpServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.listen(listenPort, listenHost, announce);
} else if (mode === 'provider') {
  let live = 0;
  /** The request path without the token, or null when the token is missing or wrong. */
  const admitted = (rawUrl) => {
    const url = new URL(rawUrl ?? '/', 'http://gate');
    if (token !== '' && url.searchParams.get('token') !== token) return null;
    url.searchParams.delete('token');
    return url.pathname + url.search;
  };
  const browserPath = () =>
    new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port: targetPort, path: '/json/version' }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          try {
            resolve(new URL(JSON.parse(body).webSocketDebuggerUrl).pathname);
          } catch (error) {
            reject(error);
          }
        });
      })
        .on('error', reject)
        .end();
    });
  const refuse = (socket, status, reason) => {
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ${reason.length}\r\nconnection: close\r\n\r\n${reason}`,
    );
  };
  const server = createHttpServer((req, res) => {
    const path = admitted(req.url);
    if (path === null) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
      return;
    }
    const upstream = request(
      { host: '127.0.0.1', port: targetPort, path, method: req.method, headers: req.headers },
      (answer) => {
        let body = '';
        answer.on('data', (chunk) => (body += chunk));
        answer.on('end', () => {
          // Hand out WebSocket URLs that come back through this gate with the token, as providers do.
          const rewritten =
            token === ''
              ? body
              : body.replace(/("webSocketDebuggerUrl":\s*"ws:\/\/[^"?]+)"/g, `$1?token=${encodeURIComponent(token)}"`);
          const headers = { ...answer.headers };
          delete headers['content-length'];
          res.writeHead(answer.statusCode ?? 502, headers).end(rewritten);
        });
      },
    );
    upstream.on('error', () => res.writeHead(502).end('Bad Gateway'));
    req.pipe(upstream);
  });
  server.on('upgrade', async (req, client, head) => {
    const path = admitted(req.url);
    if (path === null) return refuse(client, 401, 'Unauthorized');
    if (live >= maxConnections) return refuse(client, 429, 'Too Many Requests');
    live += 1;
    let released = false;
    const release = () => {
      if (!released) live -= 1;
      released = true;
    };
    client.on('close', release);
    let target = path;
    if (!path.startsWith('/devtools/')) {
      try {
        target = await browserPath();
      } catch {
        return refuse(client, 502, 'Bad Gateway');
      }
    }
    const upstream = connect(targetPort, '127.0.0.1', () => {
      const lines = [`${req.method} ${target} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.listen(listenPort, listenHost, announce);
} else {
  throw new Error(`unknown --mode ${mode}`);
}
