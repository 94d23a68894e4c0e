import type { Locator, Page } from 'playwright-core';
import type { JsonObject } from '../../../contract/common.ts';
import type { AgentContext } from '../../agentTypes.ts';
import type { PageElement, PageState } from '../pageState.ts';
import type { ResultCheck } from '../resultCheck.ts';
import type { SecretValues } from '../secretValues.ts';
import type { SkillLibrary } from '../skillLibrary.ts';
import type { TraceRecorder } from '../replay/traceRecorder.ts';
import type { VisionLocator } from '../visionLocator.ts';
import { z } from 'zod';
import { defineModelTool, type ModelTool, type ToolSpec, ToolInputError } from '../../../base/modelTool.ts';

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
  element(index: number): { element: PageElement; locator: Locator };
}

/** How a tool call ended; `final` ends the run. */
export interface ToolResult {
  output: string;
  error?: boolean;
  final?: { kind: 'done'; result: JsonObject } | { kind: 'fail'; message: string };
}

/** One tool the model may call: a `ModelTool` (one zod input shape → JSON Schema, validation, typed handler). */
export interface AgentTool extends ModelTool<ToolEnv, ToolResult> {
  /** True when the page may change under later calls of the same turn (they are then skipped). */
  changesPage: boolean;
}

/** Defines a page tool: its input is parsed against `input` before `run` sees it. */
export function agentTool<Shape extends z.ZodRawShape>(
  spec: ToolSpec<Shape, ToolEnv, ToolResult> & { changesPage: boolean },
): AgentTool {
  return { ...defineModelTool(spec), changesPage: spec.changesPage };
}

/** A text argument; a number is taken as its digits (a model may send a zip code as 12345), anything else is refused. */
export const Text = z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string());

/** The [index] of an element in this turn's listing. */
export const ElementIndex = z.number().int().describe('The [index] of the element in the current listing');

export { ToolInputError };
