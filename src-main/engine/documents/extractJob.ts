// A job started with `document_bundle_id`: waits (up to 60 s on the injected clock) for the bundle to
// be read, extracts the portal's form_data from it (with the portal's assist model, or its orchestrator
// when that is a model; else the built-in rules), records every value's source in an `extraction`
// event, then settles what the documents did not: two different values → a question offering both; a
// required property nothing supplies → a question naming it. Without a human in the loop those fail
// the job naming the keys; a value is never invented.

import { AgentFailure, type AgentQuestion } from '../../agent/agentTypes.ts';
import { flattenFormData } from '../../agent/autofill/entries.ts';
import { withoutSecrets } from '../../agent/model/secretValues.ts';
import type { JsonSchemaCompiler } from '../../base/jsonSchema.ts';
import type { JsonObject } from '../../contract/common.ts';
import { BUILTIN_AUTOFILL } from '../../contract/models.ts';
import type { LlmClient } from '../../llm/index.ts';
import { adaptValue, extractFormData, schemaLeaves, type ExtractionResult, type SchemaLeaf } from './extract.ts';
import { extractWithModel } from './extractModel.ts';
import type { ReadDocument } from './types.ts';

/** How long a job waits for its bundle to finish processing. */
export const BUNDLE_WAIT_MS = 60_000;

/** The bundle store as the job sees it (DocumentService). */
export interface BundleReader {
  waitUntilProcessed(orgId: string, id: string, timeoutMs: number): Promise<{ status: string; error: string | null }>;
  read(orgId: string, id: string): Promise<ReadDocument[]>;
}

export interface BundleJobDeps {
  documents: BundleReader;
  /** Model clients, for portals whose assist_model (or orchestrator) is a model. */
  llm?: { create(modelId: string): Promise<LlmClient> };
  schemas?: JsonSchemaCompiler;
}

/** What of the job the extraction needs. */
export interface BundleJob {
  org_id: string;
  orchestrator_model: string;
  portal: { form_schema: JsonObject; assist_model?: string | null };
  options: { document_bundle_id: string | null; human_in_the_loop: boolean };
}

export interface BundleJobHooks {
  ask(question: AgentQuestion): Promise<string>;
  event(type: 'extraction', data: JsonObject): void;
  log(line: string): void;
  reportUsage?(usage: { model: string; inputTokens: number; outputTokens: number }): void;
  signal?: AbortSignal;
}

export const bundleJobMessages = {
  stillProcessing: (seconds: number) =>
    `The document bundle was still being processed after ${seconds} s; the job did not start`,
  failed: (error: string) => `The document bundle could not be read: ${error}`,
  unsettled: (keys: string[]) =>
    `The documents do not settle ${keys.map((k) => `'${k}'`).join(', ')}, which the form requires; start the job with human_in_the_loop to answer, or with form_data`,
} as const;

function setPath(target: JsonObject, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const part of path.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

/** Whether the schema (or the key's name) says the property is secret, by autofill's own rule. */
function isSecret(leaf: SchemaLeaf, formSchema: JsonObject): boolean {
  const probe: JsonObject = {};
  setPath(probe, leaf.path, 'x');
  return flattenFormData(probe, formSchema).some((e) => e.key === leaf.key && e.secret);
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

async function extract(
  deps: BundleJobDeps,
  job: BundleJob,
  documents: ReadDocument[],
  hooks: BundleJobHooks,
): Promise<{ result: ExtractionResult; extractor: string }> {
  const schema = job.portal.form_schema;
  const modelId =
    job.portal.assist_model ?? (job.orchestrator_model !== BUILTIN_AUTOFILL ? job.orchestrator_model : null);
  const options = deps.schemas ? { schemas: deps.schemas } : {};
  if (modelId && deps.llm) {
    try {
      const client = await deps.llm.create(modelId);
      const result = await extractWithModel(client, documents, schema, {
        ...options,
        ...(hooks.signal ? { signal: hooks.signal } : {}),
        ...(hooks.reportUsage ? { onUsage: hooks.reportUsage } : {}),
      });
      return { result, extractor: modelId };
    } catch (error) {
      if (hooks.signal?.aborted) throw error;
      hooks.log(
        `documents: model ${modelId} unavailable, the built-in extractor reads the bundle: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`,
      );
    }
  }
  return { result: extractFormData(documents, schema, options), extractor: 'builtin' };
}

/** The form_data a bundle job runs with; throws AgentFailure (the job's error) when it cannot be had without inventing. */
export async function formDataFromBundle(
  deps: BundleJobDeps,
  job: BundleJob,
  hooks: BundleJobHooks,
): Promise<JsonObject> {
  const bundleId = job.options.document_bundle_id;
  if (!bundleId) throw new AgentFailure('the job has no document bundle');
  const bundle = await deps.documents.waitUntilProcessed(job.org_id, bundleId, BUNDLE_WAIT_MS);
  if (bundle.status === 'processing') throw new AgentFailure(bundleJobMessages.stillProcessing(BUNDLE_WAIT_MS / 1000));
  if (bundle.status === 'failed') throw new AgentFailure(bundleJobMessages.failed(bundle.error ?? 'unknown error'));
  const documents = await deps.documents.read(job.org_id, bundleId);
  const { result, extractor } = await extract(deps, job, documents, hooks);
  const schema = job.portal.form_schema;
  const leaves = new Map(schemaLeaves(schema).map((leaf) => [leaf.key, leaf]));
  const secretKeys = new Set([...leaves.values()].filter((leaf) => isSecret(leaf, schema)).map((leaf) => leaf.key));
  const visible = withoutSecrets(result.form_data, schema);
  // A value left out of the event's form_data is left out of its source text too.
  const hidden = (key: string): boolean =>
    secretKeys.has(key) || visible.hiddenKeys.includes(key.split('.')[0] as string);
  const sources = Object.fromEntries(
    Object.entries(result.sources).map(([key, s]) => [key, hidden(key) ? { ...s, text: '[redacted]' } : s]),
  );
  hooks.event('extraction', {
    document_bundle_id: bundleId,
    extractor,
    form_data: visible.shown,
    hidden_keys: visible.hiddenKeys,
    sources,
    missing: result.missing,
    reasons: result.reasons,
  });
  const count = Object.keys(result.sources).length;
  hooks.log(
    `documents: ${count} value(s) read from ${documents.length} document(s) by ${extractor}${result.missing.length ? `; not settled: ${result.missing.join(', ')}` : ''}`,
  );
  for (const [key, s] of Object.entries(sources))
    hooks.log(
      `documents: ${key} ← ${s.document}${s.page === null ? '' : ` p.${s.page}`}${s.ocr ? ' (OCR)' : ''}: "${s.text}"`,
    );

  const formData = structuredClone(result.form_data);
  const unsettled = result.missing.filter(
    (key) => leaves.get(key)?.required || result.conflicts.some((c) => c.key === key),
  );
  if (!unsettled.length) return formData;
  if (!job.options.human_in_the_loop) {
    const required = unsettled.filter((key) => leaves.get(key)?.required);
    if (required.length) throw new AgentFailure(bundleJobMessages.unsettled(required));
    hooks.log(`documents: left out (the documents disagree): ${unsettled.join(', ')}`);
    return formData;
  }
  for (const key of unsettled) {
    const leaf = leaves.get(key) as SchemaLeaf;
    const label = leaf.title || key;
    const conflict = result.conflicts.find((c) => c.key === key);
    const secret = secretKeys.has(key);
    if (conflict) {
      const options = conflict.values.map((v) => shown(v.value));
      const answer = await hooks.ask({
        question: `Which ${label} should the form use?`,
        options,
        message: `${result.reasons[key] ?? `The documents give different values for ${label}`}. Portico does not choose between them.`,
        ...(secret ? { secret: true } : {}),
      });
      const picked = conflict.values.find((v) => shown(v.value) === answer.trim());
      if (picked) {
        setPath(formData, leaf.path, picked.value);
        continue;
      }
      const typed = adaptValue(answer, leaf.schema);
      if (!typed.ok) throw new AgentFailure(`The answer for ${label} does not fit the form: ${typed.reason}`);
      setPath(formData, leaf.path, typed.value);
      continue;
    }
    const answer = await hooks.ask({
      question: `What is ${label}?`,
      options: Array.isArray(leaf.schema.enum) ? leaf.schema.enum.map(String) : [],
      message: `The form requires ${label} (${key}) and ${result.reasons[key] ?? 'nothing in the documents gives it'}.`,
      ...(secret ? { secret: true } : {}),
    });
    const typed = adaptValue(answer, leaf.schema);
    if (!typed.ok) throw new AgentFailure(`The answer for ${label} does not fit the form: ${typed.reason}`);
    setPath(formData, leaf.path, typed.value);
  }
  return formData;
}

/** What `POST /documents/{org}/{id}/extract?endpoint_name=E` answers: what a job on portal E would get. */
export interface ExtractionPreview {
  form_data: JsonObject;
  sources: ExtractionResult['sources'];
  missing: string[];
  reasons: Record<string, string>;
}

/**
 * The preview of a bundle's extraction for a portal (with its assist_model when set, as a job with the
 * default orchestrator would). The bundle must be read already: processing is a 409, failed a 422 (from `read`).
 */
export async function previewExtraction(
  deps: BundleJobDeps,
  orgId: string,
  bundleId: string,
  portal: BundleJob['portal'],
  log: (line: string) => void = () => {},
): Promise<ExtractionPreview> {
  const documents = await deps.documents.read(orgId, bundleId);
  const job: BundleJob = {
    org_id: orgId,
    orchestrator_model: BUILTIN_AUTOFILL,
    portal,
    options: { document_bundle_id: bundleId, human_in_the_loop: false },
  };
  const { result } = await extract(deps, job, documents, { ask: async () => '', event: () => {}, log });
  return { form_data: result.form_data, sources: result.sources, missing: result.missing, reasons: result.reasons };
}
