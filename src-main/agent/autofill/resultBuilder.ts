/**
 * Builds the job `result` from the final page.
 *
 * With an `output_schema`, each property is filled from what the page shows: a reference number
 * ("Reference: ABC-123", "Application number", "confirmation code", a `.govuk-panel` body), the
 * confirmation text (panel / `role=status` / first heading), label/value pairs (dl/dt/dd, two-cell
 * table rows, "Label: value" lines) matched to property names and titles the same way form keys are
 * matched to labels, plus `final_url`/`url`, `title` and `submitted`. Values are coerced to the
 * property's type and the whole result is validated with Ajv; a missing required property fails.
 *
 * Without an output_schema the result is:
 *   { submitted, final_url, title, confirmation_text, reference?, fields, placements, unplaced, receipt }
 * where `submitted` is what Portico saw (a submission request answered 2xx/3xx, see submissionWatch.ts),
 * where `fields` maps each form_data key to what its control showed (secrets as "[secret]"),
 * `placements` says per key which control, what value and how (the FillReport), and `unplaced`
 * lists the keys no control received.
 */
import type { Frame } from 'playwright-core';
import { answerWithin } from '../../browser/frameAccess.ts';

import { jsonSchemas } from '../../base/jsonSchema.ts';
import type { JsonObject } from '../../contract/common.ts';
import { AgentFailure, type FillReport, type SubmissionReceipt } from '../agentTypes.ts';
import { pageFacts, type RawPageFacts } from '../injected/index.ts';
import { textSimilarity } from './textNorm.ts';

export interface PageFacts {
  url: string;
  title: string;
  confirmation: string;
  reference: string | null;
  pairs: Array<{ label: string; value: string }>;
  text: string;
}

const REFERENCE =
  /(?:reference(?:\s+(?:number|code|no\.?))?|application\s+(?:number|reference|id|no\.?)|confirmation\s+(?:number|code|id)|booking\s+(?:reference|number)|order\s+(?:number|id)|case\s+(?:number|reference|id)|tracking\s+(?:number|code)|ticket\s+(?:number|id))\s*(?:is|:|#|-)?\s*:?\s*\n?\s*([A-Z0-9][A-Z0-9\-\/]{3,})/i;

/** Collects the facts of the final page, frames included (the form may live in an iframe). */
export async function readFacts(frames: Frame[]): Promise<PageFacts> {
  const facts: PageFacts = { url: '', title: '', confirmation: '', reference: null, pairs: [], text: '' };
  let panelSeen = false;
  for (const [index, frame] of frames.entries()) {
    let raw: RawPageFacts;
    try {
      raw = await answerWithin(frame, frame.evaluate(pageFacts));
    } catch {
      continue;
    }
    if (index === 0) {
      facts.url = raw.url;
      facts.title = raw.title;
    }
    // A confirmation panel (in any frame, the form may live in an iframe) beats a plain heading.
    if (raw.confirmation && (!facts.confirmation || (raw.panel && !panelSeen))) facts.confirmation = raw.confirmation;
    panelSeen ||= raw.panel;
    facts.pairs.push(...raw.pairs);
    facts.text += `${raw.text}\n`;
    const fromText = REFERENCE.exec(raw.text)?.[1] ?? null;
    if (!facts.reference) facts.reference = /^[A-Z0-9][A-Z0-9\-\/]{3,}$/i.test(raw.panelRef) ? raw.panelRef : fromText;
  }
  // "Label: value" lines.
  for (const line of facts.text.split('\n')) {
    const m = /^\s*([^:]{2,60}):\s+(.{1,200})$/.exec(line);
    if (m) facts.pairs.push({ label: (m[1] as string).trim(), value: (m[2] as string).trim() });
  }
  return facts;
}

function coerce(value: unknown, schema: Record<string, unknown>): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (typeof value !== 'string') return value;
  if (type === 'number' || type === 'integer') {
    const n = Number(value.replace(/[^\d.\-]/g, ''));
    if (!Number.isFinite(n) || value.replace(/[^\d]/g, '') === '') return value;
    return type === 'integer' ? Math.round(n) : n;
  }
  if (type === 'boolean') return /^(yes|true|y|1|submitted|confirmed|success)/i.test(value.trim());
  return value;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What Portico observed of the submission: whether one left the page and was answered 2xx/3xx, and its receipt. */
export interface SubmissionFacts {
  submitted: boolean;
  receipt: SubmissionReceipt | null;
}

function valueFor(name: string, prop: Record<string, unknown>, facts: PageFacts, submission: SubmissionFacts): unknown {
  const described = [
    name,
    typeof prop.title === 'string' ? prop.title : '',
    typeof prop.description === 'string' ? prop.description : '',
  ].join(' ');
  if (prop.type === 'boolean' && /submitted|success|ok|done|complete/i.test(name)) return submission.submitted;
  if (/^(final_?)?url$/i.test(name)) return facts.url;
  if (/^(page_?)?title$/i.test(name)) return facts.title;
  let best: { score: number; value: string } | null = null;
  for (const pair of facts.pairs) {
    const score = Math.max(
      textSimilarity(name, pair.label),
      prop.title ? textSimilarity(String(prop.title), pair.label) : 0,
    );
    if (score >= 0.5 && (!best || score > best.score)) best = { score, value: pair.value };
  }
  if (best) return best.value;
  if (
    /reference|ref\b|confirmation.?(number|code|id)|application.?(number|id)|case.?(number|id)|tracking|order.?(number|id)|booking/i.test(
      described,
    ) &&
    facts.reference
  )
    return facts.reference;
  if (/confirm|message|status|outcome|text/i.test(described) && facts.confirmation) return facts.confirmation;
  return undefined;
}

/** The job result from the final page; validated against `outputSchema` when there is one. */
export function buildResult(
  facts: PageFacts,
  outputSchema: JsonObject | null,
  fields: Record<string, string>,
  submission: SubmissionFacts,
  report?: FillReport,
): JsonObject {
  if (!outputSchema || !isObject(outputSchema.properties)) {
    const result: JsonObject = {
      submitted: submission.submitted,
      final_url: facts.url,
      title: facts.title,
      confirmation_text: facts.confirmation,
      fields,
    };
    if (submission.receipt) result.receipt = { ...submission.receipt, fields: { ...submission.receipt.fields } };
    if (report) {
      result.placements = { ...report.placements };
      result.unplaced = report.unplaced.map((u) => u.key);
    }
    if (facts.reference) result.reference = facts.reference;
    return result;
  }
  const result: JsonObject = {};
  for (const [name, raw] of Object.entries(outputSchema.properties)) {
    const prop = isObject(raw) ? raw : {};
    const value = valueFor(name, prop, facts, submission);
    if (value !== undefined) result[name] = coerce(value, prop);
  }
  const validate = jsonSchemas.compile(outputSchema, 'output_schema');
  if (!validate(result)) {
    const problems = (validate.errors ?? []).map((e) =>
      e.keyword === 'required'
        ? `'${String((e.params as { missingProperty?: string }).missingProperty)}' was not found on the final page`
        : `${e.instancePath || 'result'} ${e.message ?? 'is invalid'}`,
    );
    throw new AgentFailure(
      `The final page does not give a result matching output_schema: ${problems.join('; ')} (page: ${facts.url})`,
    );
  }
  return result;
}
