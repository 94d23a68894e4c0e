import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A mail as the test writes it; the stand-in serves it in Gmail's JSON shape (format=full). */
export interface StandInMail {
  id: string;
  receivedAt: Date;
  subject: string;
  /** text/plain body; omitted: an HTML-only mail. */
  plain?: string;
  html?: string;
}

export interface GmailStandIn {
  baseUrl: string;
  /** Every request: path with query, and the bearer token it carried. */
  readonly requests: { path: string; q: string | null; token: string }[];
  add(mail: StandInMail): void;
  stop(): Promise<void>;
}

const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** The message as users.messages.get?format=full returns it: multipart/alternative inside multipart/mixed, bodies base64url. */
function gmailMessage(mail: StandInMail): Record<string, unknown> {
  const alternatives = [
    ...(mail.plain !== undefined
      ? [
          {
            partId: '0.0',
            mimeType: 'text/plain',
            filename: '',
            headers: [{ name: 'Content-Type', value: 'text/plain; charset="UTF-8"' }],
            body: { size: Buffer.byteLength(mail.plain), data: b64url(mail.plain) },
          },
        ]
      : []),
    ...(mail.html !== undefined
      ? [
          {
            partId: '0.1',
            mimeType: 'text/html',
            filename: '',
            headers: [{ name: 'Content-Type', value: 'text/html; charset="UTF-8"' }],
            body: { size: Buffer.byteLength(mail.html), data: b64url(mail.html) },
          },
        ]
      : []),
  ];
  return {
    id: mail.id,
    threadId: mail.id,
    labelIds: ['INBOX', 'UNREAD'],
    snippet: '',
    sizeEstimate: 4096,
    historyId: '12345',
    internalDate: String(mail.receivedAt.getTime()),
    payload: {
      partId: '',
      mimeType: 'multipart/mixed',
      filename: '',
      headers: [
        { name: 'From', value: 'Example <no-reply@example.com>' },
        { name: 'To', value: 'ada@example.com' },
        { name: 'Subject', value: mail.subject },
        { name: 'Date', value: mail.receivedAt.toUTCString() },
      ],
      body: { size: 0 },
      parts: [
        {
          partId: '0',
          mimeType: 'multipart/alternative',
          filename: '',
          headers: [],
          body: { size: 0 },
          parts: alternatives,
        },
      ],
    },
  };
}

/**
 * A local stand-in of the two Gmail API endpoints the reader calls: users.messages.list (newest
 * first, honouring `after:<seconds>` in q) and users.messages.get?format=full. It answers only an
 * access token `isValidToken` accepts, as Gmail answers 401 to an expired one.
 */
export async function startGmailStandIn(isValidToken: (token: string) => boolean): Promise<GmailStandIn> {
  const mails: StandInMail[] = [];
  const requests: GmailStandIn['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    requests.push({ path: url.pathname + url.search, q: url.searchParams.get('q'), token });
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
    };
    if (token === '' || !isValidToken(token))
      return send(401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
      });
    if (url.pathname === '/gmail/v1/users/me/messages') {
      const after = /after:(\d+)/.exec(url.searchParams.get('q') ?? '')?.[1];
      const max = Number(url.searchParams.get('maxResults') ?? 100);
      const matching = mails
        .filter((mail) => after === undefined || mail.receivedAt.getTime() >= Number(after) * 1000)
        .sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime())
        .slice(0, max);
      return send(
        200,
        matching.length === 0
          ? { resultSizeEstimate: 0 }
          : {
              messages: matching.map((mail) => ({ id: mail.id, threadId: mail.id })),
              resultSizeEstimate: matching.length,
            },
      );
    }
    const one = /^\/gmail\/v1\/users\/me\/messages\/([^/]+)$/.exec(url.pathname);
    if (one && url.searchParams.get('format') === 'full') {
      const mail = mails.find((candidate) => candidate.id === one[1]);
      return mail
        ? send(200, gmailMessage(mail))
        : send(404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
    }
    return send(404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    add: (mail) => void mails.push(mail),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
