import { ActionSyntaxError, actionVariables } from '../../agent/actions/index.ts';
import { ValidationError } from '../../base/errors.ts';
import type { WorkflowStep, WorkflowVariables } from '../../contract/workflow.ts';

type Value = string | number | boolean;

const FORM_VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
const WHOLE_VARIABLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}$/;

/** Every string inside a JSON value, walked without recursion. */
function strings(value: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') found.push(node);
    else if (node !== null && typeof node === 'object') stack.push(...Object.values(node));
  }
  return found;
}

/** The `{{names}}` a step needs from the run (a step's own `variables` excluded); throws a 422 naming the step for a malformed reference. */
export function stepVariables(step: WorkflowStep, index: number): string[] {
  if ('action' in step) {
    let names: string[];
    try {
      names = actionVariables(step.action);
    } catch (error) {
      if (error instanceof ActionSyntaxError)
        throw new ValidationError(`body.steps[${index}].action: ${error.message}`);
      throw error;
    }
    return names.filter((name) => !Object.hasOwn(step.variables ?? {}, name));
  }
  const names = new Set<string>();
  for (const text of strings(step.form_data))
    for (const match of text.matchAll(FORM_VARIABLE)) names.add(match[1] as string);
  return [...names];
}

/** form_data with `{{name}}` filled in: a string that is exactly one reference takes the value as it is typed (number, boolean). */
export function fillFormData(value: unknown, variables: Readonly<Record<string, Value>>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_VARIABLE.exec(value);
    if (whole && Object.hasOwn(variables, whole[1] as string)) return variables[whole[1] as string];
    return value.replace(FORM_VARIABLE, (text, name: string) =>
      Object.hasOwn(variables, name) ? String(variables[name]) : text,
    );
  }
  if (Array.isArray(value)) return value.map((item) => fillFormData(item, variables));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillFormData(v, variables)]));
  return value;
}

/**
 * The values a run uses: the workflow's parameter defaults under the run's own. A name no step uses
 * and no parameter declares, or one a step needs that neither gives, is a 422 before anything runs.
 */
export function runVariables(
  steps: readonly WorkflowStep[],
  parameters: Readonly<Record<string, Value | null>>,
  given: WorkflowVariables,
): Record<string, Value> {
  const used = new Map<string, number>();
  steps.forEach((step, index) => {
    for (const name of stepVariables(step, index)) if (!used.has(name)) used.set(name, index);
  });
  for (const name of Object.keys(given)) {
    if (!used.has(name) && !Object.hasOwn(parameters, name)) {
      const known = [...new Set([...used.keys(), ...Object.keys(parameters)])].sort();
      throw new ValidationError(
        `body.variables.${name}: unknown variable; this workflow uses ${known.length ? known.map((n) => `'${n}'`).join(', ') : 'no variables'}`,
      );
    }
  }
  const values: Record<string, Value> = {};
  for (const [name, value] of Object.entries(parameters)) if (value !== null) values[name] = value;
  Object.assign(values, given);
  for (const [name, index] of used) {
    if (!Object.hasOwn(values, name))
      throw new ValidationError(`body.variables.${name}: required by step ${index} and has no default`);
  }
  return values;
}
