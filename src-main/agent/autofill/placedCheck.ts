// What the submission check needs to know about a placed key, read back from the page right after
// the fill: the names its value will travel under and the value the control itself holds (for a
// choice, the option's own `value` attribute, not its label).
import { controlState, type ControlState } from '../injected/index.ts';
import { readControl as readOne } from './fillBase.ts';
import { isoDate } from './dates.ts';
import type { ScannedControl } from './frameScan.ts';
import { dateRangeValue, rangeEnd } from './rangeAndNumber.ts';
import type { PlacedCheck } from './submissionCheck.ts';
import type { Target } from './targets.ts';
import { asText, filePayloads, realChoices, type ChoiceLike } from './valueAdapter.ts';

async function readControl(target: Target, pid: string): Promise<ControlState | null> {
  const loc = target.frame.locator(`[data-portico-id="${pid}"]`).first();
  return readOne(target.frame, pid, 'controlState', () =>
    loc.evaluate(controlState, undefined, { timeout: 2000 }),
  ).catch(() => null);
}

/**
 * The states of the controls marked `pids`, keyed by mark: the reads are sent together (one page call
 * each, answered in one round trip's time), where reading them one after another took a round trip per
 * radio, box and hidden field. A control that does not answer reads as absent. `known`: states the fill
 * read with its own read-back (FillResult.states), taken as they are.
 */
export async function readControls(
  target: Target,
  pids: string[],
  known: Record<string, ControlState> = {},
): Promise<Record<string, ControlState | null>> {
  const wanted = [...new Set(pids.filter(Boolean))];
  const states = await Promise.all(wanted.map((pid) => known[pid] ?? readControl(target, pid)));
  return Object.fromEntries(wanted.map((pid, i) => [pid, states[i] ?? null]));
}

function checkKind(target: Target): PlacedCheck['kind'] {
  // A time in two parts (a 12-hour box and its AM/PM select) is checked as its parts together, like a split date.
  if (target.meridiem) return 'date';
  switch (target.kind) {
    case 'boxes':
      return 'code';
    case 'select':
    case 'radio':
    case 'checkboxGroup':
    case 'listbox':
    case 'combobox':
    case 'tags':
      return 'choice';
    case 'checkbox':
      return 'checkbox';
    case 'file':
      return 'file';
    case 'dateSplit':
      return 'date';
    default:
      return 'text';
  }
}

/** The check record of `key` placed into `target` with `value` (what was meant) now showing `shown`. */
export async function placedCheckFor(
  target: Target,
  key: string,
  value: unknown,
  shown: string,
  secret: boolean,
  seen: { options?: ChoiceLike[]; sent?: string[]; tags?: boolean; states?: Record<string, ControlState> } = {},
): Promise<PlacedCheck> {
  const kind = seen.tags ? 'choice' : checkKind(target);
  const controls =
    target.kind === 'dateSplit' && target.dateParts
      ? [target.dateParts.day, target.dateParts.month, target.dateParts.year].filter((c): c is ScannedControl => !!c)
      : target.controls;
  const hiddenPid = target.controls[0]?.hiddenPid ?? '';
  const boxPids = target.kind === 'boxes' ? (target.controls[0]?.boxes ?? []).slice(0, 40) : [];
  const read = await readControls(
    target,
    [...controls.slice(0, 40).map((c) => c.pid), hiddenPid, ...boxPids],
    seen.states,
  );
  const stateOf = (pid: string): ControlState | null => (pid && read[pid]) || null;
  const states = controls.slice(0, 40).map((control) => ({ control, state: stateOf(control.pid) }));
  const hidden = stateOf(hiddenPid);
  // A row of one-character boxes: each box may be a field of its own (`otp1` … `otp6`, or `code[]` repeated).
  const boxes = boxPids.map(stateOf);
  const parts = boxes.map((b) => b?.name ?? '').filter(Boolean);
  const names = [
    ...new Set(
      [
        ...states.flatMap(({ control, state }) => [state?.name || control.name, state?.id || control.id]),
        ...parts,
        hidden?.name ?? '',
        hidden?.id ?? '',
      ].filter(Boolean),
    ),
  ];
  let sent: string[];
  // A 12-hour time box and its AM/PM select hold one time in two parts ("01:30", "PM"), like a split date.
  if (target.meridiem) sent = states.map(({ state }) => state?.value ?? '');
  else if (seen.tags) sent = seen.sent ?? [shown];
  else
    switch (target.kind) {
      case 'select':
        sent = states[0]?.state?.selected ?? [];
        break;
      case 'radio':
      case 'checkboxGroup':
        sent = states
          .filter(({ state }) => state?.checked)
          .map(({ control, state }) => {
            const choice = target.choices.find((c) => c.pid === control.pid);
            return control.aria ? (choice?.value ?? '') : (state?.value ?? choice?.value ?? '');
          })
          .filter(Boolean);
        break;
      case 'checkbox': {
        const state = states[0]?.state;
        sent = state?.checked ? [state.value || 'on'] : [];
        break;
      }
      case 'listbox':
      case 'combobox':
        if (target.kind === 'combobox' && !Array.isArray(value)) {
          sent = [states[0]?.state?.value ?? shown].filter((v) => v !== '');
          break;
        }
        // A multi-select list: the values of the options chosen, as read while the list was open.
        sent = seen.sent?.length ? seen.sent : hidden?.value ? [hidden.value] : [];
        break;
      case 'file':
        sent = [];
        break;
      case 'dateSplit':
        sent = states.map(({ state }) => state?.value ?? '');
        break;
      case 'tags':
        // A tag input: the chips as read back.
        sent = seen.sent ?? [shown];
        break;
      case 'segments':
      case 'calendar':
      case 'boxes':
        // A sectioned field or a row of boxes has no value of its own to read: what its parts were read back as.
        sent = [shown];
        break;
      default:
        sent = [states[0]?.state?.value ?? shown].filter((v) => v !== '');
    }
  const given =
    target.kind === 'file'
      ? filePayloads(value)
          .map((f) => f.name)
          .join(', ')
      : asText(value);
  const options = target.choices.length
    ? realChoices(target.choices).map((c) => ({ label: c.label, value: c.value }))
    : (seen.options ?? []);
  return {
    key,
    label: target.label,
    given,
    names,
    sent,
    options,
    kind,
    secret,
    ...(Array.isArray(value) && kind === 'choice' ? { items: value.map(asText) } : {}),
    ...(parts.length === boxes.length && parts.length ? { parts } : {}),
  };
}

/**
 * The checks of a date range's two keys (`stay.check_in`, `stay.check_out`) placed as one value `value`
 * (one range input, one range calendar): each key is checked for its own date, as ISO, under its own key
 * name only — the control's one field (when it has one) carries both dates, which is neither key's value.
 * A request carrying each date (under any name: JSON APIs rename fields) verifies each key; a field named
 * like a key carrying another date holds the request. Keys whose end is not known are left out.
 */
export function rangeLeafChecks(check: PlacedCheck, value: unknown, leaves: string[]): Record<string, PlacedCheck> {
  const range = dateRangeValue(value);
  const out: Record<string, PlacedCheck> = {};
  if (!range) return out;
  for (const leaf of leaves) {
    const which = rangeEnd(leaf.split('.').at(-1) ?? leaf);
    if (!which) continue;
    out[leaf] = { ...check, key: leaf, given: isoDate(range[which]), names: [], sent: [], options: [], kind: 'text' };
  }
  return out;
}
