import { createHash } from 'node:crypto';
import { costOfUsage, type LlmClient, type LlmResponse } from '../../llm/index.ts';
import type { AgentContext } from '../agentTypes.ts';
import { flattenFormData } from './entries.ts';
import type { KeyMapper, KeyMapRequest } from './keyMapper.ts';
import { checkMapping, mappingJson, readMappingAnswer } from './mappingAnswer.ts';
import { MAP_FIELDS_TOOL, MAPPING_SYSTEM_PROMPT, mappingRequestText } from './mappingPrompt.ts';

/** Where mappings are kept between jobs, per portal and cache key (the store's autofill_mappings). */
export interface MappingCache {
  get(portalId: string, cacheKey: string): unknown;
  put(portalId: string, cacheKey: string, mapping: unknown, sourceJobId: string | null): void;
}

export interface ModelKeyMapperDeps {
  /** Builds a client for a `provider:model` id (throws the llm/ typed errors). */
  llm: { create(modelId: string): Promise<LlmClient> };
  cache: MappingCache;
}

/** The cache key: the page structure, the key names (sorted) and the controls as indexed (label and kind); never a value. */
export function mappingCacheKey(request: KeyMapRequest): string {
  const keys = request.keys.map((k) => k.key).sort();
  const controls = request.controls.map((c) => [c.label, c.kind]);
  return createHash('sha256')
    .update(JSON.stringify([request.structure, keys, controls]))
    .digest('hex')
    .slice(0, 32);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * The portal's assist model as builtin:autofill's key mapper: one `map_fields` call per page
 * structure (keys and controls, never values), cached per portal and replayed with no call. Any
 * failure — no key, an HTTP error, an answer it cannot use — is one log line and no mapping: the
 * job goes on with its rules.
 */
export class ModelKeyMapper implements KeyMapper {
  readonly #deps: ModelKeyMapperDeps;
  readonly #ctx: AgentContext;
  readonly #modelId: string;

  constructor(deps: ModelKeyMapperDeps, ctx: AgentContext, modelId: string) {
    this.#deps = deps;
    this.#ctx = ctx;
    this.#modelId = modelId;
  }

  /** The mapping from the cache when the job may replay it, else from the model (then cached). */
  async map(request: KeyMapRequest): Promise<Map<string, number>> {
    const job = this.#ctx.job;
    const portalId = job?.portalId ?? null;
    const cacheKey = mappingCacheKey(request);
    const unmatched = `${request.keys.length} unmatched key(s)`;
    if (portalId !== null && job?.replay !== false) {
      const cached = this.#cached(portalId, cacheKey, request);
      if (cached) {
        this.#ctx.reportMode?.(
          'replayed',
          `assist model mapping from the cache: ${cached.size} of ${unmatched} mapped, no model calls`,
        );
        return cached;
      }
    }
    const mapping = await this.#ask(request);
    if (!mapping) return new Map();
    if (portalId !== null) {
      try {
        this.#deps.cache.put(portalId, cacheKey, mappingJson(mapping), job?.id ?? null);
      } catch (error) {
        this.#ctx.log(`assist model: the mapping could not be cached (${firstLine(error)})`);
      }
    }
    this.#ctx.reportMode?.(
      'assisted',
      `assist model ${this.#modelId} mapped ${mapping.size} of ${unmatched}, not from the cache`,
    );
    return mapping;
  }

  #cached(portalId: string, cacheKey: string, request: KeyMapRequest): Map<string, number> | null {
    const stored = this.#deps.cache.get(portalId, cacheKey);
    if (typeof stored !== 'object' || stored === null || !('mappings' in stored)) return null;
    const checked = checkMapping(stored.mappings, request);
    return checked && !checked.ignored.length ? checked.mapping : null;
  }

  /** One model call; null (and one log line) when there is no usable answer. */
  async #ask(request: KeyMapRequest): Promise<Map<string, number> | null> {
    let response: LlmResponse;
    try {
      const client = await this.#deps.llm.create(this.#modelId);
      response = await client.complete({
        system: MAPPING_SYSTEM_PROMPT,
        messages: [{ role: 'user', content: [{ type: 'text', text: this.#redact(mappingRequestText(request)) }] }],
        tools: [MAP_FIELDS_TOOL],
        maxTokens: 1024,
        signal: request.signal,
      });
      this.#ctx.reportUsage?.({
        model: client.modelId,
        ...response.usage,
        costUsd: costOfUsage(client.modelId, response.usage),
      });
    } catch (error) {
      if (!request.signal.aborted)
        this.#ctx.log(`assist model ${this.#modelId} unavailable, the rules alone place the keys: ${firstLine(error)}`);
      return null;
    }
    const checked = readMappingAnswer(response.content, request);
    if (!checked) {
      this.#ctx.log(
        `assist model ${this.#modelId} gave no usable ${MAP_FIELDS_TOOL.name} answer; the rules alone place the keys`,
      );
      return null;
    }
    if (checked.ignored.length) this.#ctx.log(`assist model: ignored ${checked.ignored.join('; ')}`);
    return checked.mapping;
  }

  /** Page texts never carry a secret value to the model, even where the page echoes one. */
  #redact(text: string): string {
    const secrets = flattenFormData(this.#ctx.formData, this.#ctx.formSchema)
      .filter((e) => e.secret && typeof e.value === 'string' && e.value.length >= 4)
      .map((e) => String(e.value));
    return secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  }
}
