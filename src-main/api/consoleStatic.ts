import type { FastifyInstance } from 'fastify';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Portico</title>
<p>The Portico console has not been built. Run <code>npm run serve</code>, which builds it, or <code>npm run build</code>.</p>`;

/** Serves the built console (out/renderer) at `/` and its assets; the API keeps every other path. */
export function installConsole(app: FastifyInstance, rendererDir: string): void {
  const sendFile = async (relative: string): Promise<{ type: string; body: Buffer } | undefined> => {
    const full = normalize(join(rendererDir, relative));
    if (!full.startsWith(normalize(rendererDir) + sep)) return undefined;
    try {
      if (!(await stat(full)).isFile()) return undefined;
      return { type: CONTENT_TYPES[extname(full)] ?? 'application/octet-stream', body: await readFile(full) };
    } catch {
      return undefined;
    }
  };
  app.get('/', async (_request, reply) => {
    const file = await sendFile('index.html');
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(file?.body ?? NOT_BUILT);
  });
  app.get('/assets/*', async (request, reply) => {
    const file = await sendFile(join('assets', (request.params as { '*': string })['*']));
    if (!file) return reply.status(404).send({ detail: 'Not found' });
    return reply.type(file.type).header('cache-control', 'public, max-age=31536000, immutable').send(file.body);
  });
}
