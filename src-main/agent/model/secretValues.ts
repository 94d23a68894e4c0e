import { lazyRequire } from '../../base/lazyRequire.ts';
import type { JsonObject } from '../../contract/common.ts';
import type { AgentCredential } from '../agentTypes.ts';

/**
 * The one credential a job may use (its `credential_id`, else its portal's): the engine's
 * AgentCredential. Secrets are read through it only, so no other credential id can be read.
 */
export type JobCredential = Pick<AgentCredential, 'id' | 'secret' | 'totp'>;

/** Where a typed value came from: what a replay trace records instead of the value. */
export type ValueSource =
  | { kind: 'form_data'; key: string }
  | { kind: 'credential'; id: string; field: 'password' }
  | { kind: 'totp'; id: string }
  | { kind: 'literal'; value: string };

const CREDENTIAL = /\{\{credential:([A-Za-z0-9_-]+)\.(password|totp)\}\}/g;
const FORM_DATA = /\{\{form_data\.([A-Za-z0-9_.-]+)\}\}/g;
// `^pass` is a password's short name (pass, passphrase, pass_hash), not a passport: a passport number is personal data, shown like a name.
const SENSITIVE_KEY = /pass(word|code)?$|^pass(?!port)|secret|(^|_)pin$|cvv|cvc|otp|token|ssn/i;
/** Under this many seconds left, a TOTP code may expire before the form is submitted: use the next one. */
export const TOTP_MIN_SECONDS_LEFT = 5;

const otplib = lazyRequire<typeof import('otplib')>('otplib');
/** otplib refuses seeds under 128 bits by default, but 80-bit seeds (16 base32 characters) are what many sites issue. */
let siteSeeds: ReturnType<typeof import('otplib').createGuardrails> | undefined;

/** The TOTP code to type now: the current one, or the next when the current has under 5 s left. */
export function totpCode(secret: string, nowMs: number = Date.now()): string {
  const leftMs = 30_000 - (nowMs % 30_000);
  const at = leftMs < TOTP_MIN_SECONDS_LEFT * 1000 ? nowMs + leftMs : nowMs;
  const { createGuardrails, generateSync } = otplib();
  siteSeeds ??= createGuardrails({ MIN_SECRET_BYTES: 10 });
  return generateSync({
    secret: secret.replace(/\s+/g, '').toUpperCase(),
    epoch: Math.floor(at / 1000),
    guardrails: siteSeeds,
  });
}

/**
 * form_data as it may be shown (job events, the console): the values of sensitive keys (a password
 * format or writeOnly in the schema, or a name like password/pin/token/ssn) left out, their keys listed.
 */
export function withoutSecrets(formData: JsonObject, schema: JsonObject): { shown: JsonObject; hiddenKeys: string[] } {
  const shown: JsonObject = {};
  const hiddenKeys: string[] = [];
  for (const [key, value] of Object.entries(formData)) {
    if (isSensitive(key, schema)) hiddenKeys.push(key);
    else shown[key] = value;
  }
  return { shown, hiddenKeys };
}

function isSensitive(key: string, schema: JsonObject): boolean {
  const props = schema.properties;
  const prop =
    typeof props === 'object' && props !== null && !Array.isArray(props) ? (props as JsonObject)[key] : undefined;
  const p = typeof prop === 'object' && prop !== null && !Array.isArray(prop) ? (prop as JsonObject) : {};
  return p.format === 'password' || p.writeOnly === true || SENSITIVE_KEY.test(key);
}

/**
 * Keeps secret values on this side of the model: the model sees placeholders, the browser layer
 * types the real values, and every text bound for the model passes through `redact`.
 */
export class SecretValues {
  readonly #credential: JobCredential | undefined;
  readonly #formData: JsonObject;
  readonly #known = new Map<string, string>();
  readonly #sensitiveKeys: Set<string>;

  /** `credential`: the job's own credential; without one, every credential placeholder and tool call is refused. */
  constructor(credential: JobCredential | undefined, formData: JsonObject, formSchema: JsonObject) {
    this.#credential = credential;
    this.#formData = formData;
    this.#sensitiveKeys = new Set(
      Object.keys(formData).filter((key) => typeof formData[key] === 'string' && isSensitive(key, formSchema)),
    );
    for (const key of this.#sensitiveKeys) this.#remember(String(formData[key]), `{{form_data.${key}}}`);
  }

  #remember(value: string, placeholder: string): void {
    if (value.length >= 3) this.#known.set(value, placeholder);
  }

  /** form_data as the model sees it: sensitive values replaced by `{{form_data.<key>}}`. */
  forModel(): JsonObject {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(this.#formData))
      out[key] = this.#sensitiveKeys.has(key) ? `{{form_data.${key}}}` : value;
    return out;
  }

  /** Replaces every known secret value in text bound for a model, a log line or an event. */
  redact(text: string): string {
    let out = text;
    for (const [value, placeholder] of this.#known) out = out.split(value).join(placeholder);
    return out;
  }

  /** The real text for a model-supplied string with placeholders, and where it came from. */
  async resolve(text: string): Promise<{ value: string; source: ValueSource }> {
    let source: ValueSource | undefined;
    const whole = text.trim();
    let value = text;
    for (const match of whole.matchAll(CREDENTIAL)) {
      const [placeholder, id, field] = match as unknown as [string, string, 'password' | 'totp'];
      const real = field === 'totp' ? await this.totp(id) : await this.credential(id);
      value = value.split(placeholder).join(real);
      if (placeholder === whole) source = field === 'totp' ? { kind: 'totp', id } : { kind: 'credential', id, field };
    }
    for (const match of whole.matchAll(FORM_DATA)) {
      const [placeholder, key] = match as unknown as [string, string];
      const real = this.#formData[key];
      if (real === undefined) throw new Error(`form_data has no key '${key}'`);
      value = value.split(placeholder).join(String(real));
      if (placeholder === whole) source = { kind: 'form_data', key };
    }
    if (!source) {
      const key = Object.keys(this.#formData).find(
        (k) => typeof this.#formData[k] !== 'object' && String(this.#formData[k]) === value,
      );
      source = key !== undefined ? { kind: 'form_data', key } : { kind: 'literal', value };
    }
    return { value, source };
  }

  /** The value a recorded source stands for in this job. */
  async valueOf(source: ValueSource): Promise<string | undefined> {
    switch (source.kind) {
      case 'form_data': {
        const value = this.#formData[source.key];
        return value === undefined || value === null ? undefined : String(value);
      }
      case 'credential':
        return this.credential(source.id).catch(() => undefined);
      case 'totp':
        return this.totp(source.id).catch(() => undefined);
      case 'literal':
        return source.value;
    }
  }

  /** The job's credential when `id` names it; otherwise an error the model can read (nothing is read). */
  #own(id: string): JobCredential {
    const credential = this.#credential;
    if (!credential)
      throw new Error(
        `this job has no credential: credential '${id}' cannot be used (start the job with credential_id, or give its portal one)`,
      );
    if (id !== credential.id)
      throw new Error(
        `credential '${id}' is not this job's credential: this job may use only credential_id ${credential.id}`,
      );
    return credential;
  }

  /** A credential's password, remembered so it is redacted everywhere; only the job's own credential. */
  async credential(id: string): Promise<string> {
    const value = await this.#own(id).secret(`credential/${id}/password`);
    if (value === undefined) throw new Error(`credential '${id}' has no password stored`);
    this.#remember(value, `{{credential:${id}.password}}`);
    return value;
  }

  /** A fresh TOTP code (on the job's clock) for the job's own credential; the code and the seed are redacted everywhere. */
  async totp(id: string): Promise<string> {
    const credential = this.#own(id);
    const seed = await credential.secret(`credential/${id}/totp`);
    if (seed === undefined) throw new Error(`credential '${id}' has no TOTP secret stored`);
    this.#remember(seed, `{{credential:${id}.totp_secret}}`);
    const code = await credential.totp();
    this.#remember(code, `{{credential:${id}.totp}}`);
    return code;
  }
}
