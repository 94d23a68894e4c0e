import type { FastifyInstance } from 'fastify';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';

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

// Text compresses several-fold; images and woff2 are compressed already.
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json']);
// Below this the encoding overhead is not worth a round of compression.
const MIN_COMPRESS_BYTES = 1024;

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Portico</title>
<p>The Portico console has not been built. Run <code>npm run serve</code>, which builds it, or <code>npm run build</code>.</p>`;

/**
 * The console may not be framed by any page (clickjacking of an operator who holds every org's keys);
 * it embeds only the service's own pages (live views) and talks only to the service.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "connect-src 'self' http://127.0.0.1:* http://localhost:*",
  "frame-src 'self' http://127.0.0.1:* http://localhost:*",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of the console's HTML page. */
export const CONSOLE_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export type ContentEncoding = 'br' | 'gzip';

/**
 * The encoding to answer `Accept-Encoding` with (RFC 9110 §12.5.3): the highest q-value among br and
 * gzip (br on a tie, it is smaller), `*` standing for any not listed; q=0 refuses. Undefined: identity.
 */
export function chooseEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (token !== '' && Number.isFinite(weight)) weights.set(token.trim(), weight);
  }
  const weightOf = (encoding: ContentEncoding): number => weights.get(encoding) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gz = weightOf('gzip');
  if (br <= 0 && gz <= 0) return undefined;
  return br >= gz ? 'br' : 'gzip';
}

// Measured on the 540 KB console bundle: brotli 6 gives 138 KB in ~80 ms, 9 gives 136 KB in ~420 ms
// (the first request waits for it); gzip 9 gives 153 KB in ~75 ms.
const compressors: Record<ContentEncoding, (data: Buffer) => Promise<Buffer>> = {
  br: (data) =>
    promisify(brotliCompress)(data, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 6, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
  gzip: (data) => promisify(gzip)(data, { level: 9 }),
};

interface CachedFile {
  /** The file version the variants were made from. */
  mtimeMs: number;
  size: number;
  variants: Map<ContentEncoding, Promise<Buffer>>;
}

interface ServedFile {
  type: string;
  body: Buffer;
  encoding?: ContentEncoding;
  /** Whether the response depends on Accept-Encoding. */
  negotiated: boolean;
}

/**
 * Serves the built console (out/renderer) at `/` and its assets; the API keeps every other path.
 * Text files are sent brotli- or gzip-compressed when the client accepts it, each compressed once
 * per file version and kept in memory (the built console is a handful of files).
 */
export function installConsole(app: FastifyInstance, rendererDir: string): void {
  const cache = new Map<string, CachedFile>();

  const compressed = async (
    full: string,
    mtimeMs: number,
    body: Buffer,
    encoding: ContentEncoding,
  ): Promise<Buffer | undefined> => {
    let entry = cache.get(full);
    if (!entry || entry.mtimeMs !== mtimeMs || entry.size !== body.length) {
      entry = { mtimeMs, size: body.length, variants: new Map() };
      cache.set(full, entry);
    }
    let variant = entry.variants.get(encoding);
    if (!variant) {
      variant = compressors[encoding](body);
      entry.variants.set(encoding, variant);
    }
    try {
      return await variant;
    } catch {
      entry.variants.delete(encoding);
      return undefined;
    }
  };

  const sendFile = async (relative: string, acceptEncoding: string | undefined): Promise<ServedFile | undefined> => {
    const full = normalize(join(rendererDir, relative));
    if (!full.startsWith(normalize(rendererDir) + sep)) return undefined;
    let info: Awaited<ReturnType<typeof stat>>;
    let body: Buffer;
    try {
      info = await stat(full);
      if (!info.isFile()) return undefined;
      body = await readFile(full);
    } catch {
      return undefined;
    }
    const extension = extname(full);
    const type = CONTENT_TYPES[extension] ?? 'application/octet-stream';
    const negotiated = COMPRESSIBLE.has(extension) && body.length >= MIN_COMPRESS_BYTES;
    const encoding = negotiated ? chooseEncoding(acceptEncoding) : undefined;
    if (encoding) {
      const packed = await compressed(full, Number(info.mtimeMs), body, encoding);
      if (packed) return { type, body: packed, encoding, negotiated };
    }
    return { type, body, negotiated };
  };

  const headersFor = (file: ServedFile): Record<string, string> => ({
    ...(file.negotiated && { vary: 'accept-encoding' }),
    ...(file.encoding && { 'content-encoding': file.encoding }),
  });

  app.get('/', async (request, reply) => {
    const file = await sendFile('index.html', request.headers['accept-encoding']);
    reply.type('text/html; charset=utf-8').headers(CONSOLE_PAGE_HEADERS);
    if (!file) return reply.send(NOT_BUILT);
    return reply.headers(headersFor(file)).send(file.body);
  });
  app.get('/assets/*', async (request, reply) => {
    const file = await sendFile(
      join('assets', (request.params as { '*': string })['*']),
      request.headers['accept-encoding'],
    );
    if (!file) return reply.status(404).send({ detail: 'Not found' });
    return reply
      .type(file.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .headers(headersFor(file))
      .send(file.body);
  });
}
