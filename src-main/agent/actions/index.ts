export { actionVariables, parseAction, type ParsedAction, type ActionOp, type TargetKind } from './actionGrammar.ts';
export { ActionSyntaxError, MissingVariableError } from './actionTemplate.ts';
export { replayRecipe, runParsedAction, type ActionOutcome, type Variables } from './actionInterpreter.ts';
export type { ModelActionOutcome } from './modelAction.ts';
export { isStepRecipe, type StepRecipe } from './stepRecipe.ts';
export { findAgain, type FoundAgain } from './targetIdentity.ts';
export { frameLocation } from '../injected/index.ts';

/**
 * An action the interpreter cannot read, run by the model (modelAction.ts). Loaded at the first such
 * action: it brings the agent's tools and their JSON schemas (~30 modules), which the service does not
 * need before it listens (docs/performance.md, "Start-up").
 */
export async function runWithModel(
  ...args: Parameters<typeof import('./modelAction.ts').runWithModel>
): ReturnType<typeof import('./modelAction.ts').runWithModel> {
  return (await import('./modelAction.ts')).runWithModel(...args);
}
