// Sliders (WAI-ARIA slider pattern, and `<input type=range>`): which value the slider must reach and
// which keys move it there. Pure: the filler (controlFiller.ts) presses the keys, reads the value the
// slider then reports (aria-valuenow / the input's value) and plans again from there.
import type { SliderFacts } from '../injected/index.ts';

const EPSILON = 1e-9;

/** The number a form_data value means for a slider; null when it is not a plain number ("$40", "high"). */
export function sliderNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

/** The value the slider must show for `value`, or why it cannot show it (outside its range, between two steps, not a number). */
export function sliderGoal(
  value: unknown,
  facts: Pick<SliderFacts, 'min' | 'max' | 'step'>,
): { goal: number } | { problem: string } {
  const n = sliderNumber(value);
  if (n === null) return { problem: `'${String(value)}' is not a number, which is what a slider takes` };
  if (n < facts.min - EPSILON || n > facts.max + EPSILON)
    return { problem: `${n} is outside the slider's range (${facts.min} to ${facts.max})` };
  if (facts.step > 0) {
    const steps = (n - facts.min) / facts.step;
    if (Math.abs(steps - Math.round(steps)) > 1e-6)
      return {
        problem: `${n} is not one of the slider's values (${facts.min} to ${facts.max} in steps of ${facts.step})`,
      };
  }
  return { goal: n };
}

export interface SliderKeyPlan {
  /** Keys to press, in order (each press one key). */
  keys: string[];
}

/**
 * The keys that move a slider from `now` to `goal`: Home/End for its ends (unless `arrowsOnly`: a
 * slider that ignored them), else ArrowRight/ArrowLeft once per step — from where it is, or from the
 * nearer end (Home or End first) when that takes fewer presses (0 → 9 of 0–10: End, ArrowLeft). With an unknown step (0) one
 * arrow press towards the goal, so the caller learns the step from what the slider reports after it.
 */
export function planSliderKeys(
  now: number,
  goal: number,
  facts: Pick<SliderFacts, 'min' | 'max' | 'step'>,
  arrowsOnly = false,
): SliderKeyPlan {
  if (Math.abs(goal - now) < EPSILON) return { keys: [] };
  if (!arrowsOnly && Math.abs(goal - facts.min) < EPSILON) return { keys: ['Home'] };
  if (!arrowsOnly && Math.abs(goal - facts.max) < EPSILON) return { keys: ['End'] };
  const key = goal > now ? 'ArrowRight' : 'ArrowLeft';
  if (facts.step <= 0) return { keys: [key] };
  const count = Math.max(1, Math.round(Math.abs(goal - now) / facts.step));
  const arrows = (n: number, k: string): string[] => Array.from({ length: n }, () => k);
  if (!arrowsOnly) {
    // Fewer presses from an end: Home (or End, when the range ends on a step) and arrows back from there.
    const fromMin = Math.round((goal - facts.min) / facts.step);
    const span = (facts.max - facts.min) / facts.step;
    const fromMax = Math.abs(span - Math.round(span)) < 1e-6 ? Math.round((facts.max - goal) / facts.step) : Infinity;
    if (1 + Math.min(fromMin, fromMax) < count)
      return fromMin <= fromMax
        ? { keys: ['Home', ...arrows(fromMin, 'ArrowRight')] }
        : { keys: ['End', ...arrows(fromMax, 'ArrowLeft')] };
  }
  return { keys: arrows(count, key) };
}

/** Two slider readings are the same value (floating-point steps like 0.1 add up inexactly). */
export function sameSliderValue(a: number, b: number): boolean {
  return Math.abs(a - b) < 1e-6;
}
