import { readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'forms');

export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

/** One form submission as the site received it. */
export interface FormPost {
  path: string;
  fields: Record<string, string | string[]>;
  files: UploadedFile[];
  /** The parsed body of a JSON POST (`application/json` or `+json`); undefined for other bodies or unparsable JSON. */
  json?: unknown;
  /** The body's bytes as received. */
  body?: Buffer;
  /** The address the request came from: which machine's browser sent it (browser hosts, test/helpers/netns.ts). */
  from?: string;
}

export interface FormServer {
  /** http://127.0.0.1:port */
  origin: string;
  /** The same server under another origin (http://localhost:port), for cross-origin frames. */
  altOrigin: string;
  url(path: string): string;
  posts: FormPost[];
  /** Posts to one path. */
  postsTo(path: string): FormPost[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, post: FormPost | null, server: FormServer) => void;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/**
 * A handler serving files from `dirs` (the first that has the file wins) for a prefix route: register
 * it as `'/prefix/*': staticFiles('/prefix/', dir)` and `/prefix/a/b.css` answers `dir/a/b.css`.
 */
export function staticFiles(prefix: string, ...dirs: string[]): Handler {
  return (req, res) => {
    let rest: string;
    try {
      rest = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(prefix.length));
    } catch {
      return res.writeHead(400, { 'content-type': 'text/plain' }).end('bad path');
    }
    for (const dir of dirs) {
      const root = resolve(dir);
      const file = resolve(root, rest);
      if (!file.startsWith(root + sep)) continue;
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) continue;
      const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
      return res.writeHead(200, { 'content-type': type }).end(readFileSync(file));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
}

/** The handler for `path`: an exact route, else the longest prefix route (a key ending in `/*`) it falls under. */
function routeFor(handlers: Record<string, Handler>, path: string): Handler | undefined {
  const exact = handlers[path];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(handlers)) {
    if (key.endsWith('/*') && path.startsWith(key.slice(0, -1)) && (!best || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : handlers[best];
}

function addField(fields: FormPost['fields'], name: string, value: string): void {
  const known = fields[name];
  if (known === undefined) fields[name] = value;
  else fields[name] = Array.isArray(known) ? [...known, value] : [known, value];
}

function parseBody(path: string, type: string, body: Buffer): FormPost {
  const post: FormPost = { path, fields: {}, files: [], body };
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  if (type.startsWith('multipart/form-data') && boundary) {
    const sep = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
    let start = body.indexOf(sep) + sep.length;
    while (start > sep.length - 1) {
      const next = body.indexOf(sep, start);
      if (next < 0) break;
      const part = body.subarray(start + 2, next - 2); // skip CRLF after the boundary and before the next
      const headerEnd = part.indexOf('\r\n\r\n');
      if (headerEnd >= 0) {
        const headers = part.subarray(0, headerEnd).toString();
        const content = part.subarray(headerEnd + 4);
        const name = /name="([^"]*)"/.exec(headers)?.[1] ?? '';
        const filename = /filename="([^"]*)"/.exec(headers)?.[1];
        if (filename !== undefined) {
          if (filename)
            post.files.push({
              field: name,
              filename,
              contentType: /content-type:\s*(\S+)/i.exec(headers)?.[1] ?? '',
              content: Buffer.from(content),
            });
        } else addField(post.fields, name, content.toString());
      }
      start = next + sep.length;
    }
  } else if (/^application\/([\w.-]+\+)?json\b/i.test(type)) {
    try {
      post.json = JSON.parse(body.toString('utf8'));
    } catch {
      // Left undefined: the handler answers what a site answers a broken body.
    }
  } else {
    for (const [name, value] of new URLSearchParams(body.toString())) addField(post.fields, name, value);
  }
  return post;
}

export function page(body: string, title = 'Form'): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Confirmation page every `/submit/<name>` answers with: a panel with a reference and the fields echoed. */
function confirmation(post: FormPost, count: number): string {
  const rows = Object.entries(post.fields)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(String(v))}</dd>`)
    .join('');
  return page(
    `<div class="govuk-panel govuk-panel--confirmation"><h1 class="govuk-panel__title">Application complete</h1>
    <div class="govuk-panel__body">Your reference number<br><strong>HDJ2123F${count}</strong></div></div>
    <p>We have sent you a confirmation email.</p><dl>${rows}</dl>`,
    'Application complete',
  );
}

/**
 * Serves test/fixtures/forms/*.html (with {{ALT_ORIGIN}} replaced), records every POST, answers
 * `/submit/<name>` with a confirmation page, and routes other paths to `handlers` (dynamic pages).
 * A handler key ending in `/*` is a prefix route (e.g. static assets, see `staticFiles`); exact keys win.
 */
export async function startFormServer(
  handlers: Record<string, Handler> = {},
  // Namespace browser hosts (test/helpers/netns.ts) reach 0.0.0.0 through their gateway address, used in URLs then.
  listen: { host: string; urlHost: string } = { host: '127.0.0.1', urlHost: '127.0.0.1' },
): Promise<FormServer> {
  const posts: FormPost[] = [];
  let altOrigin = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      let post: FormPost | null = null;
      if (req.method === 'POST') {
        post = {
          ...parseBody(path, String(req.headers['content-type'] ?? ''), Buffer.concat(chunks)),
          from: req.socket.remoteAddress,
        };
        posts.push(post);
      }
      const handler = routeFor(handlers, path);
      if (handler) return handler(req, res, post, api);
      if (post && path.startsWith('/submit/')) {
        return res.writeHead(200, { 'content-type': 'text/html' }).end(confirmation(post, posts.length));
      }
      const file = /^\/forms\/([\w-]+\.html)$/.exec(path)?.[1];
      if (file) {
        try {
          const text = readFileSync(join(FIXTURES, file), 'utf8').replaceAll('{{ALT_ORIGIN}}', altOrigin);
          return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(text);
        } catch {
          // fall through to 404
        }
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, listen.host, resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${listen.urlHost}:${port}`;
  altOrigin = `http://localhost:${port}`;
  const api: FormServer = {
    origin,
    altOrigin,
    url: (p) => `${origin}${p}`,
    posts,
    postsTo: (p) => posts.filter((x) => x.path === p),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
