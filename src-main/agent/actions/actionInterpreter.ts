import type { Locator, Page } from 'playwright-core';
import type { ParsedAction, TargetKind } from './actionGrammar.ts';
import { parseTemplate, renderTemplate, templateSource, templateVariables, type Template } from './actionTemplate.ts';
import { OperationError, perform, type Operation } from './operations.ts';
import type { StepRecipe } from './stepRecipe.ts';
import { findAgain, identify } from './targetIdentity.ts';
import { resolveTarget, TargetError, type TargetPurpose } from './targetResolver.ts';

/** How one action ended. `recipe` is what the step cache may keep (absent when the action must not be cached). */
export interface ActionOutcome {
  success: boolean;
  result?: string;
  error?: string;
  recipe?: StepRecipe;
}

export type Variables = Readonly<Record<string, string>>;

function purposeOf(action: ParsedAction): TargetPurpose {
  switch (action.op) {
    case 'fill': return 'fill';
    case 'select': return 'select';
    case 'check': return 'check';
    case 'hover': return 'hover';
    case 'press': return 'press';
    case 'scroll_to': return 'scroll_to';
    case 'extract': return 'extract';
    default: return 'click';
  }
}

function operationTemplate(action: ParsedAction): Template | undefined {
  switch (action.op) {
    case 'goto': return action.url;
    case 'fill': return action.text;
    case 'select': return action.option;
    case 'wait_for_text': return action.text;
    default: return undefined;
  }
}

/** Failures of the page or the target become `success: false`; anything else is a fault for the caller. */
async function settled(run: () => Promise<ActionOutcome>): Promise<ActionOutcome> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TargetError || error instanceof OperationError) return { success: false, error: error.message };
    throw error;
  }
}

/**
 * "select O from T": T's dropdown, or else (no dropdown named T) the radio button or checkbox O inside
 * the question (fieldset or radio group) named T, which turns the operation into checking it.
 */
async function dropdownOrChoice(page: Page, target: { name: string; kind: TargetKind; quoted: boolean }, option: string, operation: Operation): Promise<Locator> {
  try {
    return await resolveTarget(page, target, 'select');
  } catch (error) {
    if (!(error instanceof TargetError) || error.reason !== 'not_found' || (target.kind !== 'dropdown' && target.kind !== 'any')) throw error;
    const group = await resolveTarget(page, { ...target, kind: 'group' }, 'check').catch(() => {
      throw error;
    });
    const choice = await resolveTarget(page, { name: option, kind: 'choice', quoted: false }, 'check', group);
    operation.op = 'check';
    operation.checked = true;
    delete operation.text;
    return choice;
  }
}

/**
 * Runs a parsed action on the page: fills in the variables, resolves the target (never guessing),
 * performs the operation and returns the recipe to cache. A target named through a variable is not
 * cached: its resolved name would be that variable's value.
 */
export async function runParsedAction(page: Page, action: ParsedAction, variables: Variables): Promise<ActionOutcome> {
  const template = operationTemplate(action);
  const operation: Operation = {
    op: action.op,
    ...(template && { text: renderTemplate(template, variables) }),
    ...(action.op === 'press' && { key: action.key }),
    ...(action.op === 'check' && { checked: action.checked }),
    ...(action.op === 'scroll' && { direction: action.direction }),
  };
  const spec = 'target' in action ? action.target : undefined;
  const targetName = spec ? renderTemplate(spec.name, variables) : undefined;
  return settled(async () => {
    let locator: Locator | undefined;
    if (spec && targetName !== undefined) {
      const target = { name: targetName, kind: spec.kind, quoted: spec.quoted };
      locator = action.op === 'select' && operation.text !== undefined
        ? await dropdownOrChoice(page, target, operation.text, operation)
        : await resolveTarget(page, target, purposeOf(action));
    }
    const identity = locator ? await identify(locator) : undefined;
    const result = await perform(page, operation, locator, identity);
    // Turned into a check, the target was found by the option's text: a variable there would be cached as its value.
    const converted = operation.op !== action.op;
    const cacheable = (!spec || templateVariables(spec.name).length === 0) && !(converted && template && templateVariables(template).length > 0);
    const recipe: StepRecipe | undefined = cacheable ? {
      version: 1, op: operation.op,
      ...(identity && { target: identity }),
      ...(template && !converted && { text: templateSource(template) }),
      ...(operation.key !== undefined && { key: operation.key }),
      ...(operation.checked !== undefined && { checked: operation.checked }),
      ...(operation.direction !== undefined && { direction: operation.direction }),
    } : undefined;
    return { success: true, result, ...(recipe && { recipe }) };
  });
}

/**
 * Replays a cached recipe: the target must still have the same role and name (else `undefined`,
 * meaning the entry does not apply and a fresh resolution should run).
 */
export async function replayRecipe(page: Page, recipe: StepRecipe, variables: Variables): Promise<ActionOutcome | undefined> {
  const locator = recipe.target ? await findAgain(page, recipe.target) : undefined;
  if (recipe.target && !locator) return undefined;
  const operation: Operation = {
    op: recipe.op,
    ...(recipe.text !== undefined && { text: renderTemplate(parseTemplate(recipe.text), variables) }),
    ...(recipe.key !== undefined && { key: recipe.key }),
    ...(recipe.checked !== undefined && { checked: recipe.checked }),
    ...(recipe.direction !== undefined && { direction: recipe.direction }),
  };
  return settled(async () => ({ success: true, result: await perform(page, operation, locator, recipe.target), recipe }));
}
