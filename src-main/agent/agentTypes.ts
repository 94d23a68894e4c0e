import type { Page } from 'playwright-core';
import type { JsonObject } from '../contract/common.ts';

/** A question for the human in the loop; `options` empty means free text. */
export interface AgentQuestion {
  question: string;
  options: string[];
  /** Why the agent asks (shown with the question). */
  message: string;
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
  /** Ends one agent step: the engine takes the step's screenshot and counts it against max_turns (throws past it). */
  recordStep(description: string): Promise<void>;
  /** One line for the job's log stream. Never pass secret values. */
  log(line: string): void;
  /** Pauses the job (waiting_for_input) until a human answers; resolves with the answer text. */
  ask(question: AgentQuestion): Promise<string>;
}

/** A finished run: the job's `result`, already valid against the portal's output_schema when it has one. */
export interface AgentOutcome {
  result: JsonObject;
}

/** A run that cannot finish; `message` becomes the job's `error` verbatim. */
export class AgentFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentFailure';
  }
}

export interface Agent {
  run(context: AgentContext): Promise<AgentOutcome>;
}
