import type { Locator, Page } from 'playwright-core';
import type { ParsedAction, RowReading, TargetKind } from './actionGrammar.ts';
import { parseTemplate, renderTemplate, templateSource, templateVariables, type Template } from './actionTemplate.ts';
import { MAX_EXTRACT_CHARS, OperationError, perform, type Operation } from './operations.ts';
import { findRow } from './rowScope.ts';
import type { StepRecipe } from './stepRecipe.ts';
import { findAgain, identify, type FoundAgain } from './targetIdentity.ts';
import { KIND_WORD, resolveTarget, TargetError, type TargetPurpose } from './targetResolver.ts';

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
    case 'fill':
      return 'fill';
    case 'select':
      return 'select';
    case 'check':
      return 'check';
    case 'hover':
      return 'hover';
    case 'press':
      return 'press';
    case 'scroll_to':
      return 'scroll_to';
    case 'extract':
      return 'extract';
    default:
      return 'click';
  }
}

function operationTemplate(action: ParsedAction): Template | undefined {
  switch (action.op) {
    case 'goto':
      return action.url;
    case 'fill':
      return action.text;
    case 'select':
      return action.option;
    case 'wait_for_text':
      return action.text;
    default:
      return undefined;
  }
}

/** Failures of the page or the target become `success: false`; anything else is a fault for the caller. */
async function settled(run: () => Promise<ActionOutcome>): Promise<ActionOutcome> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TargetError || error instanceof OperationError)
      return { success: false, error: error.message };
    throw error;
  }
}

/**
 * "select O from T": T's dropdown, or else (no dropdown named T) the radio button or checkbox O inside
 * the question (fieldset or radio group) named T, which turns the operation into checking it.
 */
async function dropdownOrChoice(
  page: Page,
  target: { name: string; kind: TargetKind; quoted: boolean },
  option: string,
  operation: Operation,
): Promise<Locator> {
  try {
    return await resolveTarget(page, target, 'select');
  } catch (error) {
    if (
      !(error instanceof TargetError) ||
      error.reason !== 'not_found' ||
      (target.kind !== 'dropdown' && target.kind !== 'any')
    )
      throw error;
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

/** What a row reading settled on: a cell's value (a read by row and column) or an element inside the row. */
type InRow = { row: string; column: string; value: string } | { row: string; locator: Locator };

/**
 * The target read as "<target> for|of|in the row of <row key>": for each reading whose key names exactly one
 * row, the cell under the column header named so (a read) or the target inside that row. One reading that
 * settles wins; two are ambiguous; none leaves the whole name to be resolved (`missed` says which row was
 * found without the target, for the error).
 */
async function resolveInRow(
  page: Page,
  readings: readonly RowReading[],
  variables: Variables,
  op: ParsedAction['op'],
  purpose: TargetPurpose,
): Promise<{ hit?: InRow; missed?: string }> {
  const hits: InRow[] = [];
  let missed: string | undefined;
  for (const reading of readings) {
    const row = renderTemplate(reading.row, variables);
    const name = renderTemplate(reading.target.name, variables);
    const column = op === 'extract' && reading.target.kind === 'any' ? name : undefined;
    const found = await findRow(page, row, column);
    if (!found) continue;
    const cell = found.cell;
    if (cell && 'ambiguous' in cell)
      throw new TargetError(
        `Ambiguous column: ${cell.ambiguous} headers match ${JSON.stringify(name)}; name the column as its header reads`,
        'ambiguous',
      );
    if (cell && 'value' in cell) {
      hits.push({ row, column: name, value: cell.value });
      continue;
    }
    try {
      hits.push({
        row,
        locator: await resolveTarget(
          page,
          { name, kind: reading.target.kind, quoted: reading.target.quoted },
          purpose,
          found.row,
        ),
      });
    } catch (error) {
      if (!(error instanceof TargetError) || error.reason !== 'not_found') throw error;
      missed = `No ${KIND_WORD[reading.target.kind]} ${JSON.stringify(name)} in the row of ${JSON.stringify(row)}`;
    }
  }
  if (hits.length > 1)
    throw new TargetError(
      `Ambiguous target: the words can be read as ${hits.length} different rows and targets; quote the name or the row`,
      'ambiguous',
    );
  return { ...(hits[0] && { hit: hits[0] }), ...(missed !== undefined && { missed }) };
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
  const namedByVariable = spec !== undefined && templateVariables(spec.name).length > 0;
  return settled(async () => {
    let locator: Locator | undefined;
    let row: string | undefined;
    if (spec && targetName !== undefined) {
      const target = { name: targetName, kind: spec.kind, quoted: spec.quoted };
      const inRow = spec.rows ? await resolveInRow(page, spec.rows, variables, action.op, purposeOf(action)) : {};
      if (inRow.hit && 'value' in inRow.hit) {
        const cell = inRow.hit;
        const recipe: StepRecipe = { version: 1, op: 'extract', row: cell.row, column: cell.column };
        return { success: true, result: cell.value.slice(0, MAX_EXTRACT_CHARS), ...(!namedByVariable && { recipe }) };
      }
      if (inRow.hit) {
        locator = inRow.hit.locator;
        row = inRow.hit.row;
      } else {
        try {
          locator =
            action.op === 'select' && operation.text !== undefined
              ? await dropdownOrChoice(page, target, operation.text, operation)
              : await resolveTarget(page, target, purposeOf(action));
        } catch (error) {
          // The row was there, the target in it was not: say so rather than that the whole words matched nothing.
          if (error instanceof TargetError && error.reason === 'not_found' && inRow.missed !== undefined)
            throw new TargetError(inRow.missed, 'not_found');
          throw error;
        }
      }
    }
    const identity = locator ? await identify(locator) : undefined;
    const result = await perform(page, operation, locator, identity);
    // Turned into a check, the target was found by the option's text: a variable there would be cached as its value.
    const converted = operation.op !== action.op;
    const cacheable = !namedByVariable && !(converted && template && templateVariables(template).length > 0);
    const recipe: StepRecipe | undefined = cacheable
      ? {
          version: 1,
          op: operation.op,
          ...(identity && { target: identity }),
          ...(row !== undefined && { row }),
          ...(template && !converted && { text: templateSource(template) }),
          ...(operation.key !== undefined && { key: operation.key }),
          ...(operation.checked !== undefined && { checked: operation.checked }),
          ...(operation.direction !== undefined && { direction: operation.direction }),
        }
      : undefined;
    return { success: true, result, ...(recipe && { recipe }) };
  });
}

/** A recipe's operation with the variables' values filled in. */
function operationOf(recipe: StepRecipe, variables: Variables): Operation {
  return {
    op: recipe.op,
    ...(recipe.text !== undefined && { text: renderTemplate(parseTemplate(recipe.text), variables) }),
    ...(recipe.key !== undefined && { key: recipe.key }),
    ...(recipe.checked !== undefined && { checked: recipe.checked }),
    ...(recipe.direction !== undefined && { direction: recipe.direction }),
  };
}

/**
 * Replays a cached recipe: the target must still have the same role and name (else `undefined`,
 * meaning the entry does not apply and a fresh resolution should run).
 */
export async function replayRecipe(
  page: Page,
  recipe: StepRecipe,
  variables: Variables,
  found?: FoundAgain,
): Promise<ActionOutcome | undefined> {
  if (found && recipe.row === undefined)
    return settled(async () => ({
      success: true,
      result: await perform(page, operationOf(recipe, variables), found.locator, recipe.target, found.facts),
      recipe,
    }));
  let scope: Locator | undefined;
  if (recipe.row !== undefined) {
    // The same row by the same rule (its key), wherever it has moved; none, or several, and the entry does not apply.
    const found = await findRow(page, recipe.row, recipe.column).catch((error: unknown) => {
      if (error instanceof TargetError) return undefined;
      throw error;
    });
    if (!found) return undefined;
    if (recipe.column !== undefined) {
      if (!found.cell || !('value' in found.cell)) return undefined;
      return { success: true, result: found.cell.value.slice(0, MAX_EXTRACT_CHARS), recipe };
    }
    scope = found.row;
  }
  const again = recipe.target ? await findAgain(page, recipe.target, scope, recipe.op) : undefined;
  if (recipe.target && !again) return undefined;
  return settled(async () => ({
    success: true,
    result: await perform(page, operationOf(recipe, variables), again?.locator, recipe.target, again?.facts),
    recipe,
  }));
}
