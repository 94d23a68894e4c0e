import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  url: string;
  /** Requests seen, as "METHOD /path". */
  hits: string[];
  close(): Promise<void>;
}

type Handler = (
  req: IncomingMessage,
  body: string,
) => { status?: number; type?: string; body: string | Buffer; headers?: Record<string, string> } | undefined;

/**
 * A real HTTP server serving the given pages (path → html or handler), on loopback unless `listen` says
 * otherwise (namespace hosts reach `0.0.0.0` through their gateway; `urlHost` then names the address for URLs).
 */
export async function startPageServer(
  pages: Record<string, string | Handler>,
  listen: { host: string; urlHost: string } = { host: '127.0.0.1', urlHost: '127.0.0.1' },
): Promise<PageServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      hits.push(`${req.method ?? 'GET'} ${path}`);
      const page = pages[path];
      const answer = typeof page === 'function' ? page(req, body) : page === undefined ? undefined : { body: page };
      if (!answer) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res
        .writeHead(answer.status ?? 200, {
          'content-type': answer.type ?? 'text/html; charset=utf-8',
          ...answer.headers,
        })
        .end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, listen.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${listen.urlHost}:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
