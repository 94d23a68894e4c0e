// The Playwright half of the submission check. After the filler clicks a button (and until it starts
// filling the next page) every request that could carry the form — a form navigation (POST, or GET
// with a query) or a fetch / XHR / beacon with a body — is held by `page.route` while
// submissionCheck.ts compares it with the placements. Everything else is let through untouched
// (`route.fallback()`), and nothing is intercepted before the first click. A request whose value
// changed meaning is held: a human decides (Send / Correct / Cancel) or the job fails; the held
// request never leaves (`route.abort`, or for a navigation an empty 204 answer so the page stays).
import { createHash } from 'node:crypto';

import type { Page, Request, Route } from 'playwright-core';

import { redactUrl } from '../../base/urlRedaction.ts';
import { AgentFailure } from '../agentTypes.ts';
import { checkRequest, requestFields, type Mismatch, type PlacedCheck } from './submissionCheck.ts';
import type { ObservedRequest } from './submissionSeen.ts';

/** A held request's fate: sent as it is, the key corrected (the page is filled again), or cancelled. */
export type HeldDecision = { send: true } | { correct: { key: string; value: string } };

interface Observed extends ObservedRequest {
  request: Request;
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
  readonly #pending = new Set<Promise<void>>();
  readonly #observed: Observed[] = [];
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
  }

  /** Stops checking (the filler is about to type into the next page). */
  disarm(): void {
    this.#armed = false;
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
    await Promise.all(
      this.#observed
        .filter((o) => o.status === null)
        .map(async (o) => {
          const response = await Promise.race([
            o.request.response().catch(() => null),
            new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000)),
          ]);
          if (response) o.status = response.status();
        }),
    );
    if (this.#failure) {
      const failure = this.#failure;
      this.#failure = null;
      throw failure;
    }
    return this.#corrections.splice(0);
  }

  /** Whether a request that could carry values left the page in this run. */
  get sawRequest(): boolean {
    return this.#observed.length > 0;
  }

  /** Every request let leave the page so far, as plain data (submissionSeen.ts decides from it). */
  observed(): ObservedRequest[] {
    return this.#observed.map(({ request: _request, ...data }) => ({ ...data, fields: [...data.fields] }));
  }

  #route(route: Route, request: Request): Promise<void> {
    const body = request.postDataBuffer();
    const navigation = request.isNavigationRequest();
    const method = request.method().toUpperCase();
    const candidate =
      this.#armed &&
      SUBMITTING.has(request.resourceType()) &&
      ((method !== 'GET' && method !== 'HEAD' && !!body?.length) ||
        (navigation && method === 'GET' && new URL(request.url()).search.length > 1));
    if (!candidate) return route.fallback().catch(() => undefined);
    const work = this.#check(route, request, body, navigation, method);
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
    return work;
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
      this.#observed.push({
        request,
        method,
        url: request.url(),
        fields,
        navigation,
        verified: result.verified,
        approved,
        status: null,
        bodySha: body?.length ? createHash('sha256').update(body).digest('hex') : null,
      });
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
