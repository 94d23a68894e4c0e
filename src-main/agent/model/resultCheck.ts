import { jsonSchemas, type ErrorObject, type ValidateFunction } from '../../base/jsonSchema.ts';
import type { JsonObject } from '../../contract/common.ts';
import { AgentFailure } from '../agentTypes.ts';

/** How many results that miss output_schema go back to the model before the job fails. */
export const MAX_RESULT_REJECTIONS = 2;

/** `result.a.b` for Ajv's `/a/b`, so the message names the field as the model wrote it. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty?: string }).missingProperty));
  if (error.keyword === 'additionalProperties')
    path.push(String((error.params as { additionalProperty?: string }).additionalProperty));
  return ['result', ...path].join('.');
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'required') return `${fieldOf(error)} is required`;
  if (error.keyword === 'additionalProperties') return `${fieldOf(error)} is not allowed`;
  return `${fieldOf(error)} ${error.message ?? 'is invalid'}`;
}

/**
 * Checks the model's `done` result against the portal's output_schema: a miss goes back to the
 * model as a tool error it can fix, up to MAX_RESULT_REJECTIONS times; the next miss fails the job.
 */
export class ResultCheck {
  readonly #validate: ValidateFunction | undefined;
  #rejections = 0;

  constructor(outputSchema: JsonObject | null) {
    if (!outputSchema) return;
    this.#validate = jsonSchemas.compile(outputSchema, 'output_schema');
  }

  /** The problems of `result` for the model to fix, or undefined when it matches; throws once the model has had its chances. */
  problems(result: JsonObject): string | undefined {
    if (!this.#validate || this.#validate(result)) return undefined;
    const problems = (this.#validate.errors ?? []).map(describe).join('; ');
    this.#rejections += 1;
    if (this.#rejections > MAX_RESULT_REJECTIONS) {
      throw new AgentFailure(
        `The model's result does not match output_schema after ${this.#rejections} attempts: ${problems}`,
      );
    }
    return problems;
  }
}
