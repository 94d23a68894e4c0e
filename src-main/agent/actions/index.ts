export { actionVariables, parseAction, type ParsedAction, type ActionOp, type TargetKind } from './actionGrammar.ts';
export { ActionSyntaxError, MissingVariableError } from './actionTemplate.ts';
export { replayRecipe, runParsedAction, type ActionOutcome, type Variables } from './actionInterpreter.ts';
export { runWithModel, type ModelActionOutcome } from './modelAction.ts';
export { isStepRecipe, type StepRecipe } from './stepRecipe.ts';
export { findAgain, type FoundAgain } from './targetIdentity.ts';
export { frameLocation } from '../injected/index.ts';
