// Whether the run may say "submitted": a request carrying the form left the page after the filler's
// click (a form navigation, or a fetch / XHR / beacon carrying placed values), the server answered it
// 2xx/3xx, and every required key was placed. Otherwise `problem` says what is missing.
//
// Two halves: `submissionVerdict` decides from plain data (the requests submissionWatch.ts observed,
// the placements, the entries) and is unit-tested without a browser; `submissionSeen` only gathers
// that data from the page and the watch.
import type { AgentContext, SubmissionReceipt } from '../agentTypes.ts';
import { redactUrl } from '../../base/urlRedaction.ts';
import type { Entry } from './entries.ts';
import type { PlacedValue, UnplacedKey } from './fillState.ts';
import { receiptFields, type SentField } from './submissionCheck.ts';
import { asText } from './valueAdapter.ts';
import type { Wizard, WizardOutcome } from './wizard.ts';

/** One request the watch let leave the page after a click (held ones are never observed), as plain data. */
export interface ObservedRequest {
  method: string;
  url: string;
  fields: SentField[];
  bodySha: string | null;
  /** A form navigation (how a check-your-answers page confirms, even carrying nothing). */
  navigation: boolean;
  /** Keys the check found in it with their meaning intact. */
  verified: string[];
  /** Keys whose changed value a human chose to send. */
  approved: string[];
  /** The server's answer; null when none came. */
  status: number | null;
}

export interface SubmissionSeen {
  receipt: SubmissionReceipt | null;
  /** Null when the submission was seen; else what is missing, for the question or the job's error. */
  problem: string | null;
}

/** What the verdict is decided from: everything observed, nothing to look at. */
export interface SubmissionInput {
  entries: Entry[];
  placed: ReadonlyMap<string, PlacedValue>;
  unplaced: UnplacedKey[];
  /** Every request observed in the run, in the order they left. */
  observed: ObservedRequest[];
  /** The last page, as the problem names it (its title, else its URL). */
  page: string;
}

/**
 * The receipt of the final submission: the last request that carried a placed value (or a form
 * navigation), else the last request; null when none left the page. `carried`: some request of the
 * run carried a placed value (verified or approved).
 */
export function finalReceipt(
  observed: ObservedRequest[],
  placedKeys: string[],
  secretValues: string[],
  secretNames: string[],
): { receipt: SubmissionReceipt; carried: boolean; navigation: boolean } | null {
  const verified = new Set(observed.flatMap((o) => o.verified));
  const approved = new Set(observed.flatMap((o) => o.approved));
  const final =
    [...observed].reverse().find((o) => o.verified.length || o.approved.length || o.navigation) ?? observed.at(-1);
  if (!final) return null;
  return {
    carried: verified.size + approved.size > 0,
    navigation: final.navigation,
    receipt: {
      method: final.method,
      url: redactUrl(final.url),
      fields: receiptFields(final.fields, secretValues, secretNames),
      body_sha256: final.bodySha,
      response_status: final.status,
      verified: placedKeys.filter((k) => verified.has(k)),
      unverified: placedKeys.filter((k) => !verified.has(k) && !approved.has(k)),
      approved: placedKeys.filter((k) => approved.has(k)),
    },
  };
}

/** Was the final submission seen, with the values? The receipt, and null or what is missing. */
export function submissionVerdict(input: SubmissionInput): SubmissionSeen {
  const { entries, placed, unplaced, observed } = input;
  const placedKeys = entries.map((e) => e.key).filter((k) => placed.has(k));
  const checks = [...placed.values()].map((p) => p.check);
  const secretValues = [
    ...entries.filter((e) => e.secret).map((e) => asText(e.value)),
    ...checks.filter((c) => c.secret).flatMap((c) => [c.given, ...c.sent]),
  ];
  const secretNames = checks.filter((c) => c.secret).flatMap((c) => c.names);
  const seen = finalReceipt(observed, placedKeys, secretValues, secretNames);
  const receipt = seen?.receipt ?? null;
  const page = `'${input.page}'`;
  const requiredLeft = unplaced
    .filter((u) => entries.find((e) => e.key === u.key)?.required && !/human said/.test(u.reason))
    .map((u) => u.key);
  const unplacedKeys = unplaced.map((u) => u.key);
  if (!placedKeys.length && entries.length) {
    const keys = unplacedKeys.length ? ` (form_data keys ${unplacedKeys.join(', ')})` : '';
    return {
      receipt,
      problem: `no control on the pages it reached took a value${keys}; the last page, ${page}, has no field for them and nothing in the task says how to reach the form`,
    };
  }
  if (!seen)
    return {
      receipt,
      problem: `nothing was sent: after the last click on ${page} no request carrying the form left the page (a page that only shows a message has not submitted anything)`,
    };
  if (!seen.carried && !seen.navigation && entries.length)
    return {
      receipt,
      problem: `the request to ${receipt?.url} carried none of the values placed (${placedKeys.join(', ')})`,
    };
  const status = receipt?.response_status ?? null;
  if (status === null) return { receipt, problem: `the submission to ${receipt?.url} got no answer from the server` };
  if (status < 200 || status >= 400)
    return { receipt, problem: `the server answered the submission to ${receipt?.url} with HTTP ${status}` };
  if (requiredLeft.length)
    return { receipt, problem: `required form_data keys were not placed: ${requiredLeft.join(', ')}` };
  return { receipt, problem: null };
}

/** Gathers what `submissionVerdict` decides from: the watch's observed requests and the last page's title. */
export async function submissionSeen(
  ctx: AgentContext,
  wizard: Wizard,
  outcome: WizardOutcome,
  entries: Entry[],
): Promise<SubmissionSeen> {
  const input = { entries, placed: outcome.placed, unplaced: outcome.unplaced, observed: wizard.watch.observed() };
  // The page's name is only in what a problem says: read (a round trip) only when there is one.
  const seen = submissionVerdict({ ...input, page: '' });
  if (!seen.problem) return seen;
  return submissionVerdict({ ...input, page: (await ctx.page.title().catch(() => '')) || ctx.page.url() });
}
