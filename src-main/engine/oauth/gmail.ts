import { systemClock, type Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';

/** The Gmail API's own address; PORTICO_GMAIL_API_BASE points elsewhere (a test stand-in). */
export const DEFAULT_GMAIL_API_BASE = 'https://gmail.googleapis.com';
/** How often a waiting job's mailbox is asked again. */
export const GMAIL_POLL_MS = 5_000;

/** What a mail offers to finish a sign-in: a one-time code, a magic link, or both. */
export interface MailCode {
  code?: string;
  link?: string;
  message_id: string;
  /** ISO 8601: when Gmail received the message. */
  received_at: string;
}

/** 502: the Gmail API failed; the detail never carries a token or a mail body. */
export class GmailError extends AppError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(502, detail, options);
  }
}

/** A Gmail message part (users.messages.get, format=full). */
interface GmailPart {
  mimeType?: string;
  body?: { data?: string; size?: number };
  parts?: GmailPart[];
}

interface GmailMessage {
  id?: string;
  internalDate?: string;
  payload?: GmailPart;
  snippet?: string;
}

const MAX_DEPTH = 20;
const MAX_TEXT = 1024 * 1024;

/** The text/plain and text/html bodies of a message, base64url-decoded, multipart walked depth first. */
export function messageBodies(payload: GmailPart | undefined): { plain: string[]; html: string[] } {
  const out = { plain: [] as string[], html: [] as string[] };
  const walk = (part: GmailPart | undefined, depth: number): void => {
    if (!part || depth > MAX_DEPTH) return;
    const type = (part.mimeType ?? '').toLowerCase();
    if (typeof part.body?.data === 'string' && (type === 'text/plain' || type === 'text/html')) {
      const text = Buffer.from(part.body.data, 'base64url').toString('utf8').slice(0, MAX_TEXT);
      (type === 'text/plain' ? out.plain : out.html).push(text);
    }
    for (const child of part.parts ?? []) walk(child, depth + 1);
  };
  walk(payload, 0);
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };
const decodeEntities = (text: string): string =>
  text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name] ?? '');

/** An HTML body as the text a reader sees (no tags, scripts or styles). */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<br\s*\/?>|<\/p>|<\/div>|<\/tr>/gi, '\n')
      .replace(/<[^>]+>/g, ' '),
  ).replace(/[ \t]+/g, ' ');
}

const CODE_WORDS = /(?:code|otp|pin|passcode|password|verification|verify|one[- ]time|security|confirm)/i;

/** A 4–8 digit code standing on its own ("Your code is 123 456" reads as 123456); a number announced as a code wins. */
export function extractCode(text: string): string | undefined {
  const announced = new RegExp(
    `${CODE_WORDS.source}[^0-9]{0,60}?(?<![\\d-])(\\d(?:[ -]?\\d){3,7})(?![\\d-])`,
    'i',
  ).exec(text);
  const match = announced?.[1] ?? /(?<![\d.,:/-])(\d{4,8})(?![\d.,:/-])/.exec(text)?.[1];
  if (match === undefined) return undefined;
  const digits = match.replace(/[ -]/g, '');
  return digits.length >= 4 && digits.length <= 8 ? digits : undefined;
}

const LINK_WORDS =
  /(verify|verification|confirm|magic|login|log-in|signin|sign-in|sign_in|auth|token|activate|continue)/i;
const NOT_A_SIGN_IN = /(unsubscribe|privacy|terms|preferences|help|support)/i;

/**
 * The link that signs in: an https link whose address or anchor text says verify/confirm/sign in/magic.
 * `httpOrigin` (the credential's own site, when it is plain http such as a local one) is accepted too.
 */
export function extractMagicLink(plain: string, html: string, httpOrigin?: string): string | undefined {
  const candidates: { url: string; text: string }[] = [];
  for (const match of html.matchAll(/<a\b[^>]*?href\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi)) {
    candidates.push({ url: decodeEntities(match[1] ?? ''), text: htmlToText(match[2] ?? '') });
  }
  for (const match of plain.matchAll(/https?:\/\/[^\s<>"')\]]+/g)) candidates.push({ url: match[0], text: '' });
  const usable = candidates.filter(({ url }) => {
    if (!URL.canParse(url)) return false;
    const parsed = new URL(url);
    const secure =
      parsed.protocol === 'https:' ||
      (parsed.protocol === 'http:' && httpOrigin !== undefined && parsed.origin === httpOrigin);
    return secure && !NOT_A_SIGN_IN.test(url);
  });
  return usable.find(
    ({ url, text }) => LINK_WORDS.test(text) || LINK_WORDS.test(new URL(url).pathname + new URL(url).search),
  )?.url;
}

/** The code and magic link of one message (format=full), or undefined when it has neither. */
export function readMessage(message: GmailMessage, httpOrigin?: string): MailCode | undefined {
  const { plain, html } = messageBodies(message.payload);
  const plainText = plain.join('\n');
  const htmlText = html.join('\n');
  const text = plainText || htmlToText(htmlText);
  const code = extractCode(text);
  const link = extractMagicLink(plainText, htmlText, httpOrigin);
  if (code === undefined && link === undefined) return undefined;
  const received = Number(message.internalDate);
  return {
    ...(code !== undefined && { code }),
    ...(link !== undefined && { link }),
    message_id: String(message.id ?? ''),
    received_at: new Date(Number.isFinite(received) ? received : 0).toISOString(),
  };
}

/** The default search: mails that announce a code or a sign-in link. */
export const DEFAULT_MAIL_QUERY = '{code verification verify otp passcode "one-time" "sign in" "log in" login confirm}';

export interface GmailReaderDeps {
  /** A valid access token of the connected account (ConnectedAccountService.accessToken: refreshed, one refresh at a time). */
  accessToken(accountId: string): Promise<string>;
  /** PORTICO_GMAIL_API_BASE, else the Gmail API. */
  baseUrl?: string;
  fetch?: typeof fetch;
  clock?: Clock;
  pollMs?: number;
}

/**
 * Reads one-time codes and magic links from a Google account connected through OAuth: the newest
 * message matching a query (`users.messages.list`), then that message (`users.messages.get`,
 * format=full). Nothing of the mail is logged or kept.
 */
export class GmailCodeReader {
  readonly #deps: GmailReaderDeps;
  readonly #base: string;
  readonly #fetch: typeof fetch;
  readonly #clock: Clock;

  constructor(deps: GmailReaderDeps) {
    this.#deps = deps;
    this.#base = (deps.baseUrl ?? DEFAULT_GMAIL_API_BASE).replace(/\/+$/, '');
    this.#fetch = deps.fetch ?? ((input, init) => fetch(input, init));
    this.#clock = deps.clock ?? systemClock;
  }

  async #get(accountId: string, path: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const token = await this.#deps.accessToken(accountId);
    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}/gmail/v1/users/me/${path}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new GmailError('The Gmail API could not be reached', { cause: error });
    }
    if (!response.ok) throw new GmailError(`The Gmail API answered HTTP ${response.status}`);
    const body: unknown = await response.json().catch(() => undefined);
    if (typeof body !== 'object' || body === null) throw new GmailError('The Gmail API answered without a JSON object');
    return body as Record<string, unknown>;
  }

  /**
   * The newest message matching `query` (Gmail search syntax; default: mails announcing a code or a
   * sign-in link) received at or after `since`, read for its code and magic link.
   */
  async newest(
    accountId: string,
    options: { query?: string; since?: Date; signal?: AbortSignal; httpOrigin?: string } = {},
  ): Promise<MailCode | undefined> {
    const parts = [options.query ?? DEFAULT_MAIL_QUERY];
    // Gmail's `after:` takes seconds; the exact instant is checked against internalDate below.
    if (options.since) parts.push(`after:${Math.floor(options.since.getTime() / 1000)}`);
    const list = await this.#get(
      accountId,
      `messages?${new URLSearchParams({ q: parts.join(' '), maxResults: '5' })}`,
      options.signal,
    );
    const ids = Array.isArray(list.messages)
      ? list.messages
          .map((m: unknown) => (m as { id?: unknown }).id)
          .filter((id): id is string => typeof id === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(id))
      : [];
    // The list is newest first; the first message since `since` that carries a code or link wins.
    for (const id of ids) {
      const message = (await this.#get(accountId, `messages/${id}?format=full`, options.signal)) as GmailMessage;
      const received = Number(message.internalDate);
      if (options.since && Number.isFinite(received) && received < options.since.getTime()) continue;
      const found = readMessage(message, options.httpOrigin);
      if (found) return found;
    }
    return undefined;
  }

  /** Asks the mailbox every `pollMs` until a mail since `since` gives a code or link, or `signal` aborts. */
  async waitFor(
    accountId: string,
    since: Date,
    signal: AbortSignal,
    query?: string,
    httpOrigin?: string,
  ): Promise<MailCode> {
    const pollMs = this.#deps.pollMs ?? GMAIL_POLL_MS;
    for (;;) {
      signal.throwIfAborted();
      const found = await this.newest(accountId, {
        since,
        signal,
        ...(query !== undefined && { query }),
        ...(httpOrigin !== undefined && { httpOrigin }),
      });
      if (found) return found;
      await new Promise<void>((resolve, reject) => {
        const timer = this.#clock.setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        }, pollMs);
        const onAbort = (): void => {
          this.#clock.clearTimeout(timer);
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }
}

/**
 * A code source for credentials linked to a Google account (`gmail_oauth_account_id`), in the shape
 * of engine/credentials' CodeSource (`codeWaiter.register(source)`). A credential reads only an
 * account of the user who created it: anyone else's mailbox is never opened.
 */
export class GmailCodeSource {
  readonly name = 'gmail';
  readonly #reader: GmailCodeReader;
  readonly #ownerOf: (accountId: string) => string | undefined;

  constructor(reader: GmailCodeReader, ownerOf: (accountId: string) => string | undefined) {
    this.#reader = reader;
    this.#ownerOf = ownerOf;
  }

  /**
   * The code of the first mail since `sinceIso` that has one. A mail with only a magic link is given
   * as `{link}` when the waiter can open links (`options.links`) and the link is of the credential's
   * site (`service_url`'s origin, when set: the same rule as typing); otherwise it is passed over.
   */
  async next(
    credential: { gmail_oauth_account_id: string | null; created_by: string; service_url?: string | null },
    sinceIso: string,
    signal: AbortSignal,
    options: { links?: boolean } = {},
  ): Promise<string | { link: string } | undefined> {
    const accountId = credential.gmail_oauth_account_id;
    if (!accountId || this.#ownerOf(accountId) !== credential.created_by) return undefined;
    const site = credential.service_url ? new URL(credential.service_url).origin : undefined;
    const httpOrigin = site?.startsWith('http:') ? site : undefined;
    for (;;) {
      const found = await this.#reader.waitFor(accountId, new Date(sinceIso), signal, undefined, httpOrigin);
      if (found.code !== undefined) return found.code;
      if (found.link !== undefined && options.links && (site === undefined || new URL(found.link).origin === site))
        return { link: found.link };
      sinceIso = new Date(Date.parse(found.received_at) + 1).toISOString();
    }
  }
}
