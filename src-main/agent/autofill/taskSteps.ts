// The task's plain steps: sentences of the portal's `task` that the single-action grammar reads as a
// click ("Click the 'Open the application' link") or a choice ("choose 'Create an account'"). The
// wizard runs one where it applies — on a page where no control takes a value yet, when the element it
// names is there. Conservative: only quoted names (matched as written, never a look-alike), only
// click and choose, each sentence at most once (the wizard's run state remembers which ran).
import type { Page } from 'playwright-core';

import { parseAction, type ParsedAction } from '../actions/actionGrammar.ts';
import { runParsedAction } from '../actions/actionInterpreter.ts';
import { templateVariables } from '../actions/actionTemplate.ts';

export interface TaskStep {
  text: string;
  action: ParsedAction;
}

/** The click/choose steps of a task, in order. */
export function taskSteps(task: string): TaskStep[] {
  const clauses = task
    .split(/(?<=[.!;])\s+|,\s*(?:and\s+)?then\s+|\s+and\s+then\s+|\s+then\s+|\n+/i)
    .map((c) => c.trim().replace(/^(and|then)\s+/i, ''))
    .filter(Boolean);
  const steps: TaskStep[] = [];
  for (const text of clauses) {
    let action: ParsedAction | undefined;
    try {
      action = parseAction(text);
    } catch {
      continue;
    }
    if (!action || (action.op !== 'click' && !(action.op === 'check' && action.checked))) continue;
    if (!action.target.quoted || templateVariables(action.target.name).length) continue;
    steps.push({ text: text.replace(/[.!;,]+$/, ''), action });
  }
  return steps;
}

/** Runs a step when what it names is on the page (exactly one element); false when it is not there. */
export async function runTaskStep(page: Page, step: TaskStep): Promise<boolean> {
  const outcome = await runParsedAction(page, step.action, {});
  return outcome.success;
}
