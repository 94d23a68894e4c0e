import type { Locator, Page } from 'playwright-core';
import type { JsonObject } from '../../../contract/common.ts';
import type { AgentContext } from '../../agentTypes.ts';
import type { PageElement, PageState } from '../pageState.ts';
import type { ResultCheck } from '../resultCheck.ts';
import type { SecretValues } from '../secretValues.ts';
import type { SkillLibrary } from '../skillLibrary.ts';
import type { TraceRecorder } from '../replay/traceRecorder.ts';
import type { VisionLocator } from '../visionLocator.ts';
import { PorticoError } from '../../../base/errors.ts';

/** What a tool may use during one turn. */
export interface ToolEnv {
  page: Page;
  ctx: AgentContext;
  state: PageState;
  secrets: SecretValues;
  trace: TraceRecorder;
  skills: SkillLibrary;
  vision: VisionLocator;
  /** Checks a `done` result against output_schema (shared by every turn: it counts rejections). */
  results: ResultCheck;
  /** The element at `index` in this turn's listing, or an error the model can act on. */
  element(index: unknown): { element: PageElement; locator: Locator };
}

/** How a tool call ended; `final` ends the run. */
export interface ToolResult {
  output: string;
  error?: boolean;
  final?: { kind: 'done'; result: JsonObject } | { kind: 'fail'; message: string };
}

/** One tool the model may call. */
export interface AgentTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** True when the page may change under later calls of the same turn (they are then skipped). */
  changesPage: boolean;
  run(input: Record<string, unknown>, env: ToolEnv): Promise<ToolResult>;
}

/** A tool error the model sees and can correct (wrong index, missing option, …). */
export class ToolInputError extends PorticoError {
  constructor(message: string) {
    super(message);
  }
}

export function stringArg(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' && typeof value !== 'number') throw new ToolInputError(`'${name}' must be a string`);
  return String(value);
}

export const INDEX_PROP = {
  index: { type: 'integer', description: 'The [index] of the element in the current listing' },
};
