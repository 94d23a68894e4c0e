import type { WaitBudget } from './waitBudget.ts';
import type { Page } from 'playwright-core';
import type { JsonObject } from '../contract/common.ts';
import { PorticoError } from '../base/errors.ts';

/** A question for the human in the loop; `options` empty means free text. */
export interface AgentQuestion {
  question: string;
  options: string[];
  /** Why the agent asks (shown with the question). */
  message: string;
  /** The answer is a secret (a one-time code): the job's events record that it was answered, never what. */
  secret?: boolean;
}

/** The job an agent runs for: which models it names and what it may reuse. */
export interface AgentJobInfo {
  id: string;
  /** The portal's id (replay traces are kept per portal); null when the portal is gone. */
  portalId: string | null;
  orchestratorModel: string;
  visionModel: string;
  skillIds: string[];
  /** Whether a recorded trace (or a cached key mapping) may be replayed (job option `replay`, default true). */
  replay: boolean;
  /** The portal's `assist_model`: builtin:autofill may ask it to map unmatched keys; null is off. */
  assistModel: string | null;
}

/** One model call's tokens and their price, for `session_cost_usd`. */
export interface ModelUsageReport {
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/**
 * How a job used models: all from a recorded trace (or, for autofill, a cached key mapping), partly
 * (then the model took over), from scratch, or — autofill only — with a key mapping asked of the assist model.
 */
export type RunMode = 'replayed' | 'healed' | 'fresh' | 'assisted';

/** Where one form_data key went: the control's label, what it shows, how the value was adapted and how the control was found. */
export interface KeyPlacement {
  control: string;
  value: string;
  how: 'exact' | 'normalised' | 'synonym' | 'answer';
  matched_by: 'name' | 'options' | 'elimination' | 'answer' | 'model';
}

/** The builtin filler's audit of a submission: every key placed, or listed with the reason it was not. */
export interface FillReport {
  placements: Record<string, KeyPlacement>;
  unplaced: Array<{ key: string; reason: string }>;
}

/** What the builtin filler saw leave the page as the form's submission (a `submission` event, `result.receipt`). */
export interface SubmissionReceipt {
  method: string;
  /** Redacted like every recorded URL. */
  url: string;
  /** name → value as sent (repeated names as lists), secrets masked. */
  fields: Record<string, string | string[]>;
  /** sha256 of the body bytes as sent; null for a GET form. */
  body_sha256: string | null;
  /** The server's answer; null when none came. */
  response_status: number | null;
  /** Keys found in a request of this run with their meaning intact. */
  verified: string[];
  /** Placed keys the check could not find in any request (listed, never silently passed). */
  unverified: string[];
  /** Keys whose changed value a human chose to send as it was. */
  approved: string[];
}

/**
 * The stored credential a job was started with (`credential_id`). Values are read only to be typed;
 * every value read is redacted from the job's logs, events and result.
 */
export interface AgentCredential {
  id: string;
  serviceName: string;
  username: string | null;
  /** Origin of the credential's `service_url`: values are typed only into frames of this origin; null: any. */
  origin: string | null;
  hasPassword: boolean;
  hasTotp: boolean;
  /** Whether a code may arrive by SMS or mail (a phone number or mail account is linked). */
  receivesCodes: boolean;
  password(): Promise<string>;
  /** The TOTP code to type now, from the job's clock (the next one when under 5 s remain). */
  totp(): Promise<string>;
  /** This credential's secret by keychain name (`credential/<id>/password`, `…/totp`); another credential's reads as undefined. */
  secret(name: string): Promise<string | undefined>;
  /** A code sent by SMS or mail: waits for one (60 s), then asks a human, or fails saying why without HITL. */
  receivedCode(): Promise<string>;
  /** As receivedCode, but a mail holding only a sign-in link of the credential's site gives `{link}`, to open in the job's page. */
  receivedCodeOrLink?(): Promise<string | { link: string }>;
}

/** A step's screenshot started ahead of its description (`AgentContext.captureStep`); only the engine reads its picture. */
export interface StepCapture {
  /** Settles (never rejects) once the capture is done, taken or not. */
  readonly taken: Promise<void>;
}

/** What the job engine hands an agent for one run. The page is already open (about:blank). */
export interface AgentContext {
  page: Page;
  startUrl: string;
  task: string;
  formData: JsonObject;
  formSchema: JsonObject;
  outputSchema: JsonObject | null;
  /** The agent may pause with ask(); without it, missing data is a failure naming the field. */
  humanInTheLoop: boolean;
  /** True when a URL matches the portal's humanized_urls: type and move like a person there. */
  isHumanized(url: string): boolean;
  /** Cancel, timeout and shutdown abort this; agents stop at the next await. */
  signal: AbortSignal;
  /** How long one action may wait for the page (the job's remaining time, agent/waitBudget.ts); absent: 30 s. */
  budget?: WaitBudget;
  /**
   * Ends one agent step: the engine takes the step's screenshot and counts it against max_turns (throws past it).
   * With `capture` (from captureStep) the step's picture is that capture, unless it could not be taken or a human
   * was asked since it started (the live view may have changed the page): then it is taken now.
   */
  recordStep(description: string, capture?: StepCapture): Promise<void>;
  /**
   * Starts a step's screenshot now, while the agent goes on reading the page (the capture only reads it). The agent
   * passes it to recordStep only when the page is known not to have changed since and nothing acted on it: a capture
   * it does not pass is dropped. Absent (some contexts): recordStep takes the picture.
   */
  captureStep?(): StepCapture;
  /** One line for the job's log stream. Never pass secret values. */
  log(line: string): void;
  /** Pauses the job (waiting_for_input) until a human answers; resolves with the answer text. */
  ask(question: AgentQuestion): Promise<string>;
  /** The credential the job was started with, if any. */
  credential?: AgentCredential;
  /** The job behind this run (agents that ignore it, like autofill, need not read it). */
  job?: AgentJobInfo;
  /** Adds one model call's usage to the job's `session_cost_usd`. */
  reportUsage?(usage: ModelUsageReport): void;
  /** Records how the run went (an `agent_mode` event and a log line). */
  reportMode?(mode: RunMode, detail: string): void;
  /** Records where each form_data key went (a `fill_report` event). */
  reportFill?(report: FillReport): void;
  /** Records what the form sent and how the server answered (a `submission` event). */
  reportSubmission?(receipt: SubmissionReceipt): void;
}

/** A finished run: the job's `result`, already valid against the portal's output_schema when it has one. */
export interface AgentOutcome {
  result: JsonObject;
}

/** A run that cannot finish; `message` becomes the job's `error` verbatim. */
export class AgentFailure extends PorticoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface Agent {
  run(context: AgentContext): Promise<AgentOutcome>;
}
