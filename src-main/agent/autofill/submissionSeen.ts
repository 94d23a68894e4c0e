// Whether the run may say "submitted": a request carrying the form left the page after the filler's
// click (a form navigation, or a fetch / XHR / beacon carrying placed values), the server answered it
// 2xx/3xx, and every required key was placed. Otherwise `problem` says what is missing.
import type { AgentContext, SubmissionReceipt } from '../agentTypes.ts';
import type { Entry } from './entries.ts';
import { asText } from './valueAdapter.ts';
import type { Wizard, WizardOutcome } from './wizard.ts';

export interface SubmissionSeen {
  receipt: SubmissionReceipt | null;
  /** Null when the submission was seen; else what is missing, for the question or the job's error. */
  problem: string | null;
}

export async function submissionSeen(
  ctx: AgentContext,
  wizard: Wizard,
  outcome: WizardOutcome,
  entries: Entry[],
): Promise<SubmissionSeen> {
  const placedKeys = entries.map((e) => e.key).filter((k) => outcome.placed.has(k));
  const checks = [...outcome.placed.values()].map((p) => p.check);
  const secretValues = [
    ...entries.filter((e) => e.secret).map((e) => asText(e.value)),
    ...checks.filter((c) => c.secret).flatMap((c) => [c.given, ...c.sent]),
  ];
  const secretNames = checks.filter((c) => c.secret).flatMap((c) => c.names);
  const seen = wizard.watch.receipt(placedKeys, secretValues, secretNames);
  const receipt = seen?.receipt ?? null;
  const page = `'${(await ctx.page.title().catch(() => '')) || ctx.page.url()}'`;
  const requiredLeft = outcome.unplaced
    .filter((u) => entries.find((e) => e.key === u.key)?.required && !/human said/.test(u.reason))
    .map((u) => u.key);
  const unplaced = outcome.unplaced.map((u) => u.key);
  if (!placedKeys.length && entries.length) {
    const keys = unplaced.length ? ` (form_data keys ${unplaced.join(', ')})` : '';
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
