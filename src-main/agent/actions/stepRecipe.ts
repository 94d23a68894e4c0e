import type { ActionOp } from './actionGrammar.ts';
import type { TargetIdentity } from './targetIdentity.ts';

/**
 * What the step cache keeps of one resolved action: the operation and the target it settled on.
 * Texts are template sources (`{{name}}` kept as written), so a variable's value is never stored.
 */
export interface StepRecipe {
  version: 1;
  op: ActionOp;
  target?: TargetIdentity;
  /** Typed text, option, URL or awaited text, as a template source. */
  text?: string;
  key?: string;
  checked?: boolean;
  direction?: 'up' | 'down' | 'top' | 'bottom';
  /** The row key the target is scoped to ("Delete for Invoice 7": the Delete of the row of Invoice 7), as resolved. */
  row?: string;
  /** With `row` and no target: the cell of that row under this column header is read ("the status of order 1042"). */
  column?: string;
}

const OPS: ReadonlySet<string> = new Set<ActionOp>([
  'goto',
  'click',
  'fill',
  'select',
  'check',
  'press',
  'hover',
  'scroll',
  'scroll_to',
  'wait_for_text',
  'extract',
]);

/** Whether a stored value is a recipe this version can replay (older or foreign shapes are treated as a miss). */
export function isStepRecipe(value: unknown): value is StepRecipe {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<StepRecipe>;
  if (v.version !== 1 || typeof v.op !== 'string' || !OPS.has(v.op)) return false;
  if (
    (v.row !== undefined && typeof v.row !== 'string') ||
    (v.column !== undefined && (typeof v.column !== 'string' || v.row === undefined))
  )
    return false;
  if (v.target !== undefined) {
    const t = v.target as Partial<TargetIdentity>;
    if (
      typeof t.role !== 'string' ||
      typeof t.name !== 'string' ||
      typeof t.selector !== 'string' ||
      (t.by !== 'role' && t.by !== 'text')
    )
      return false;
    if (t.frame !== undefined && typeof t.frame !== 'string') return false;
  }
  return true;
}
