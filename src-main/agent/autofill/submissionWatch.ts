// The Playwright half of the submission check. After the filler clicks a button (and until it starts
// filling the next page) every request that could carry the form — a form navigation (POST, or GET
// with a query) or a fetch / XHR / beacon with a body — is held by `page.route` while
// submissionCheck.ts compares it with the placements. Everything else is let through untouched
// (`route.fallback()`), and nothing is intercepted before the first click. A request whose value
// changed meaning is held: a human decides (Send / Correct / Cancel) or the job fails; the held
// request never leaves (`route.abort`, or for a navigation an empty 204 answer so the page stays).
//
// A click's request is the click's until the filler next acts on the page (`typing`), not until the
// filler's next turn: a loaded machine may hand a request the page sent during the click to `page.route`
// long after the click was read as done. One that reaches `page.route` only after the filler has typed
// again is let through unchecked-for-holding (the filler's own typing may make a page send drafts) and is
// the click's only if the page's own record says it was sent before that typing (Resource Timing, written
// once it is answered: `startsOf`); otherwise it is no submission of the filler's.
import { createHash } from 'node:crypto';

import type { Page, Request, Route } from 'playwright-core';

import { redactUrl } from '../../base/urlRedaction.ts';
import { AgentFailure } from '../agentTypes.ts';
import { resourceStarts } from '../injected/index.ts';
import { checkRequest, requestFields, type Mismatch, type PlacedCheck, type SentField } from './submissionCheck.ts';
import type { ObservedRequest } from './submissionSeen.ts';

/** A held request's fate: sent as it is, the key corrected (the page is filled again), or cancelled. */
export type HeldDecision = { send: true } | { correct: { key: string; value: string } };

interface Observed extends ObservedRequest {
  request: Request;
  /** The click (`arm` count) it belongs to. */
  click: number;
}

/** A request carrying values that reached `page.route` after the filler typed again: whose it is is known once it is answered. */
interface Late {
  observed: Observed;
  mismatches: Mismatch[];
  /** When that click was made and when the filler first acted on the page after it (ms since the epoch). */
  armedAt: number;
  typedAt: number;
}

const SUBMITTING = new Set(['document', 'fetch', 'xhr', 'ping', 'other']);

export interface WatchOptions {
  placed(): PlacedCheck[];
  /** Decides about a request whose values changed: throws AgentFailure to fail the job (the request is held). */
  decide(mismatch: Mismatch): Promise<HeldDecision>;
  log(line: string): void;
}

export class SubmissionWatch {
  readonly #page: Page;
  readonly #options: WatchOptions;
  #installed = false;
  #armed = false;
  /** Clicks armed so far; the observed requests of the last one are `#clicks`'. */
  #clicks = 0;
  /** When the filler first acted on the page since the last click; null until it does. */
  #typedAt: number | null = null;
  #armedAt = 0;
  readonly #pending = new Set<Promise<void>>();
  readonly #observed: Observed[] = [];
  readonly #late: Late[] = [];
  #failure: unknown = null;
  readonly #corrections: Array<{ key: string; value: string }> = [];
  readonly #handler = (route: Route, request: Request): Promise<void> => this.#route(route, request);

  constructor(page: Page, options: WatchOptions) {
    this.#page = page;
    this.#options = options;
  }

  /** Starts holding submissions (called just before the filler clicks a button). */
  async arm(): Promise<void> {
    if (!this.#installed) {
      await this.#page.route('**/*', this.#handler);
      this.#installed = true;
    }
    this.#armed = true;
    this.#clicks += 1;
    this.#typedAt = null;
    this.#armedAt = Date.now();
  }

  /** Clicks armed so far. */
  get clicks(): number {
    return this.#clicks;
  }

  /** Whether the filler acted on the page (`typing`) since the last click, or the watch is off. */
  get actedSinceClick(): boolean {
    return !this.#armed;
  }

  /**
   * The filler is about to act on the page (type, choose, add a row): from now on what the page sends is
   * not the last click's, unless the browser sent it before (see the top of this file).
   */
  typing(): void {
    if (!this.#armed) return;
    this.#armed = false;
    this.#typedAt = Date.now();
  }

  async dispose(): Promise<void> {
    this.#armed = false;
    if (this.#installed) await this.#page.unroute('**/*', this.#handler).catch(() => undefined);
    this.#installed = false;
  }

  /**
   * Waits until every held request is decided and every released one answered; throws the failure a
   * held request ended in. Returns the corrections a human asked for (to type before submitting again).
   */
  async settle(): Promise<Array<{ key: string; value: string }>> {
    while (this.#pending.size) await Promise.allSettled([...this.#pending]);
    const late = this.#late.splice(0);
    await Promise.all(
      [...this.#observed.filter((o) => o.status === null), ...late.map((l) => l.observed)].map(async (o) => {
        const response = await Promise.race([
          o.request.response().catch(() => null),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000)),
        ]);
        if (response) o.status = response.status();
      }),
    );
    for (const l of late) await this.#attribute(l);
    if (this.#failure) {
      const failure = this.#failure;
      this.#failure = null;
      throw failure;
    }
    return this.#corrections.splice(0);
  }

  /**
   * Whether the last click's submission is seen and answered: a request carrying a placed value (or a form
   * navigation carrying fields) left after it and the server answered 2xx/3xx (call `settle` first).
   */
  answeredSinceClick(): boolean {
    return this.#observed.some(
      (o) =>
        o.click === this.#clicks &&
        (o.verified.length > 0 || o.approved.length > 0) &&
        o.status !== null &&
        o.status >= 200 &&
        o.status < 400,
    );
  }

  /**
   * Whether the last click sent nothing the watch checks and `settle` has nothing to wait for: no request held or
   * being checked, none seen late, none of the last click's seen.
   */
  get idle(): boolean {
    return !this.#pending.size && !this.#late.length && !this.#observed.some((o) => o.click === this.#clicks);
  }

  /** Whether requests carrying values reached the watch after the filler typed again, not yet attributed (`settle` does). */
  get lateWaiting(): boolean {
    return this.#late.length > 0;
  }

  /**
   * A late request is the last click's when the browser sent it before the filler typed again; then a value
   * that changed meaning in it is the job's failure (it could not be held: it was seen too late). Else it is
   * none of the filler's submissions and is forgotten.
   */
  async #attribute(late: Late): Promise<void> {
    const { observed } = late;
    if (observed.status === null || observed.navigation) return;
    // The page's own record of when it started its requests to that URL (Resource Timing, written once the
    // answer is in), against the click and the filler's typing: one started in between for each request of
    // this click to the URL. (Playwright's request timing starts when the request left the route.)
    const starts = await startsOf(observed.request, observed.url);
    const between = starts.filter((t) => t >= late.armedAt && t < late.typedAt).length;
    const counted = this.#observed.filter((o) => o.click === observed.click && o.url === observed.url).length;
    if (between <= counted) return;
    this.#observed.push(observed);
    this.#options.log(
      `submission ${observed.method} ${redactUrl(observed.url)} (sent by the click, seen late): ${observed.verified.length} value(s) verified`,
    );
    const [mismatch] = late.mismatches;
    if (mismatch && !this.#failure)
      this.#failure = new AgentFailure(
        `The form sent ${mismatch.secret ? 'a changed secret value' : `'${mismatch.sent}'`} for form_data '${mismatch.key}' ('${mismatch.label}') but form_data gave ${mismatch.secret ? 'another' : `'${mismatch.given}'`}; the request reached Portico too late to be held`,
      );
  }

  /** Every request let leave the page so far, as plain data (submissionSeen.ts decides from it). */
  observed(): ObservedRequest[] {
    return this.#observed.map(({ request: _request, click: _click, ...data }) => ({
      ...data,
      fields: [...data.fields],
    }));
  }

  #route(route: Route, request: Request): Promise<void> {
    const body = request.postDataBuffer();
    const navigation = request.isNavigationRequest();
    const method = request.method().toUpperCase();
    const shaped =
      this.#clicks > 0 &&
      SUBMITTING.has(request.resourceType()) &&
      ((method !== 'GET' && method !== 'HEAD' && !!body?.length) ||
        (navigation && method === 'GET' && new URL(request.url()).search.length > 1));
    if (!shaped) return route.fallback().catch(() => undefined);
    const typedAt = this.#typedAt;
    if (!this.#armed && typedAt !== null)
      return this.#track(this.#lateRequest(route, request, body, navigation, method, typedAt));
    if (!this.#armed) return route.fallback().catch(() => undefined);
    return this.#track(this.#check(route, request, body, navigation, method));
  }

  #track(work: Promise<void>): Promise<void> {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
    return work;
  }

  /** A request seen after the filler typed again: never held (it may be the page's own draft); kept to attribute once answered. */
  async #lateRequest(
    route: Route,
    request: Request,
    body: Buffer | null,
    navigation: boolean,
    method: string,
    typedAt: number,
  ): Promise<void> {
    try {
      const contentType = (await request.headerValue('content-type').catch(() => null)) ?? '';
      const fields = requestFields(method, request.url(), contentType, body);
      const result = checkRequest(fields, this.#options.placed());
      if (fields.length)
        this.#late.push({
          observed: this.#observedOf(request, method, fields, navigation, result.verified, [], body),
          mismatches: result.mismatches,
          armedAt: this.#armedAt,
          typedAt,
        });
    } catch {
      // Unreadable: not the filler's to judge; it leaves as the page sent it.
    }
    await route.fallback().catch(() => undefined);
  }

  #observedOf(
    request: Request,
    method: string,
    fields: SentField[],
    navigation: boolean,
    verified: string[],
    approved: string[],
    body: Buffer | null,
  ): Observed {
    return {
      request,
      click: this.#clicks,
      method,
      url: request.url(),
      fields,
      navigation,
      verified,
      approved,
      status: null,
      bodySha: body?.length ? createHash('sha256').update(body).digest('hex') : null,
    };
  }

  async #check(
    route: Route,
    request: Request,
    body: Buffer | null,
    navigation: boolean,
    method: string,
  ): Promise<void> {
    let held = false;
    try {
      const contentType = (await request.headerValue('content-type').catch(() => null)) ?? '';
      const fields = requestFields(method, request.url(), contentType, body);
      const placed = this.#options.placed();
      const result = checkRequest(fields, placed);
      const approved: string[] = [];
      for (const mismatch of result.mismatches) {
        const decision = await this.#options.decide(mismatch);
        if ('correct' in decision) {
          this.#corrections.push(decision.correct);
          held = true;
          break;
        }
        approved.push(mismatch.key);
      }
      if (held) {
        this.#options.log(`submission to ${redactUrl(request.url())} held: a corrected value will be typed first`);
        await this.#hold(route, navigation);
        return;
      }
      this.#observed.push(this.#observedOf(request, method, fields, navigation, result.verified, approved, body));
      if (fields.length)
        this.#options.log(
          `submission ${method} ${redactUrl(request.url())}: ${result.verified.length} value(s) verified`,
        );
      await route.continue().catch(() => undefined);
    } catch (error) {
      this.#failure =
        error instanceof AgentFailure
          ? error
          : new AgentFailure(
              `Checking the submission failed: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            );
      this.#options.log(`submission to ${redactUrl(request.url())} held and not sent`);
      if (!held) await this.#hold(route, navigation);
    }
  }

  /** The request never leaves: a navigation gets an empty 204 (the page stays as it is), anything else is aborted. */
  async #hold(route: Route, navigation: boolean): Promise<void> {
    if (navigation) await route.fulfill({ status: 204, body: '' }).catch(() => undefined);
    else await route.abort('blockedbyclient').catch(() => undefined);
  }
}

/**
 * When the page started its requests to `url` (ms since the epoch, by the page's clock: its time origin plus
 * each Resource Timing entry's start), once their entries are written (when the answer's body is in); []
 * when the page keeps none (its frame went, or the entry did not come within 10 s).
 */
async function startsOf(request: Request, url: string): Promise<number[]> {
  try {
    const handle = await request.frame().waitForFunction(resourceStarts, url, { timeout: 10_000, polling: 50 });
    return (await handle.jsonValue()) as number[];
  } catch {
    return [];
  }
}
