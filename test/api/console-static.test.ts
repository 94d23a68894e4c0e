import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseEncoding, installConsole } from '../../src-main/api/consoleStatic.ts';
import { scratchDir } from '../helpers/browserFixtures.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire (still encoded). */
  raw: Buffer;
}

/** A plain HTTP GET that leaves the body as sent, so the encoding itself can be checked. */
function get(base: string, path: string, acceptEncoding?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function decoded(response: RawResponse): Buffer {
  switch (response.headers['content-encoding']) {
    case 'br':
      return brotliDecompressSync(response.raw);
    case 'gzip':
      return gunzipSync(response.raw);
    default:
      return response.raw;
  }
}

/** The console's static files over a real HTTP server, from a real folder shaped like out/renderer. */
describe('console static files: compression', () => {
  const dir = scratchDir('portico-renderer-');
  const bundle = join(dir.path, 'assets', 'index-abc123.js');
  let app: FastifyInstance;
  let base: string;
  // A realistic bundle: real, varied source (this project's API folder), not a repeated string.
  const apiDir = join(process.cwd(), 'src-main', 'api');
  const js = Buffer.concat(
    readdirSync(apiDir)
      .filter((name) => name.endsWith('.ts'))
      .sort()
      .map((name) => readFileSync(join(apiDir, name))),
  );

  beforeAll(async () => {
    mkdirSync(join(dir.path, 'assets'));
    writeFileSync(bundle, js);
    writeFileSync(join(dir.path, 'assets', 'tiny.css'), 'body{margin:0}');
    writeFileSync(join(dir.path, 'assets', 'logo.png'), Buffer.alloc(4096, 7));
    writeFileSync(
      join(dir.path, 'index.html'),
      `<!doctype html><title>Portico</title>${'<!-- padding -->'.repeat(200)}<script src="/assets/index-abc123.js"></script>`,
    );
    app = Fastify();
    installConsole(app, dir.path);
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    dir.cleanup();
  });

  it('the JS bundle is brotli when accepted, its decoded body equal to the file and much smaller on the wire', async () => {
    expect(js.length).toBeGreaterThan(20_000);
    const res = await get(base, '/assets/index-abc123.js', 'gzip, deflate, br, zstd');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Number(res.headers['content-length'])).toBe(res.raw.length);
    expect(decoded(res).equals(js)).toBe(true);
    expect(res.raw.length).toBeLessThan(js.length / 3);
  });

  it('gzip for a client without brotli; identity for one without Accept-Encoding or refusing both', async () => {
    const gz = await get(base, '/assets/index-abc123.js', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(decoded(gz).equals(js)).toBe(true);
    const refusedBr = await get(base, '/assets/index-abc123.js', 'br;q=0, gzip;q=0.5');
    expect(refusedBr.headers['content-encoding']).toBe('gzip');
    for (const accept of [undefined, 'identity', 'br;q=0, gzip;q=0', '*;q=0']) {
      const plain = await get(base, '/assets/index-abc123.js', accept);
      expect(plain.headers['content-encoding'], String(accept)).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      expect(plain.raw.equals(js)).toBe(true);
    }
  });

  it('the console page itself is compressed too and stays no-store', async () => {
    const res = await get(base, '/', 'gzip, br');
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(decoded(res).toString('utf8')).toBe(readFileSync(join(dir.path, 'index.html'), 'utf8'));
  });

  it('tiny files and already-compressed images go as they are', async () => {
    const css = await get(base, '/assets/tiny.css', 'br, gzip');
    expect(css.headers['content-encoding']).toBeUndefined();
    expect(css.raw.toString()).toBe('body{margin:0}');
    const png = await get(base, '/assets/logo.png', 'br, gzip');
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.headers.vary).toBeUndefined();
    expect(png.raw.equals(Buffer.alloc(4096, 7))).toBe(true);
  });

  it('a rebuilt file is compressed afresh, never served from the old version', async () => {
    const path = join(dir.path, 'assets', 'rebuilt.js');
    const v1 = Buffer.from(`export const v = 1; // ${'one '.repeat(800)}`);
    writeFileSync(path, v1);
    expect(decoded(await get(base, '/assets/rebuilt.js', 'br')).equals(v1)).toBe(true);
    const v2 = Buffer.from(`export const v = 2; // ${'two '.repeat(900)}`);
    writeFileSync(path, v2);
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    expect(decoded(await get(base, '/assets/rebuilt.js', 'br')).equals(v2)).toBe(true);
    expect(decoded(await get(base, '/assets/rebuilt.js', 'gzip')).equals(v2)).toBe(true);
  });

  it("the console page may not be framed by any page: CSP frame-ancestors 'none', X-Frame-Options DENY, never sniffed", async () => {
    const page = await get(base, '/', 'br');
    const csp = String(page.headers['content-security-policy']);
    expect(csp.split('; ')).toEqual(
      expect.arrayContaining(["frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]),
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(base, '/assets/tiny.css', undefined)).headers['x-content-type-options']).toBe('nosniff');
  });

  it('paths outside the console folder stay 404', async () => {
    expect((await get(base, '/assets/..%2F..%2Fetc%2Fpasswd', 'br')).status).toBe(404);
    expect((await get(base, '/assets/missing.js', 'br')).status).toBe(404);
  });

  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['BR;Q=1, GZIP;Q=1', 'br'],
    ['*', 'br'],
    ['*;q=0.1, br;q=0', 'gzip'],
    ['br;q=0, gzip;q=0, *;q=1', undefined],
    ['deflate, zstd', undefined],
  ])('chooseEncoding(%j) is %j', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});
