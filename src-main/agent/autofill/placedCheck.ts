// What the submission check needs to know about a placed key, read back from the page right after
// the fill: the names its value will travel under and the value the control itself holds (for a
// choice, the option's own `value` attribute, not its label).
import { controlState, type ControlState } from '../injected/index.ts';
import { readControl as readOne } from './fillBase.ts';
import type { ScannedControl } from './frameScan.ts';
import type { PlacedCheck } from './submissionCheck.ts';
import type { Target } from './targets.ts';
import { asText, filePayloads, realChoices, type ChoiceLike } from './valueAdapter.ts';

async function readControl(target: Target, pid: string): Promise<ControlState | null> {
  const loc = target.frame.locator(`[data-portico-id="${pid}"]`).first();
  return readOne(target.frame, pid, 'controlState', () =>
    loc.evaluate(controlState, undefined, { timeout: 2000 }),
  ).catch(() => null);
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
  seen: { options?: ChoiceLike[]; sent?: string[] } = {},
): Promise<PlacedCheck> {
  const kind = checkKind(target);
  const controls =
    target.kind === 'dateSplit' && target.dateParts
      ? [target.dateParts.day, target.dateParts.month, target.dateParts.year].filter((c): c is ScannedControl => !!c)
      : target.controls;
  const states: Array<{ control: ScannedControl; state: ControlState | null }> = [];
  for (const control of controls.slice(0, 40)) states.push({ control, state: await readControl(target, control.pid) });
  const hidden = target.controls[0]?.hiddenPid ? await readControl(target, target.controls[0].hiddenPid) : null;
  // A row of one-character boxes: each box may be a field of its own (`otp1` … `otp6`, or `code[]` repeated).
  const boxes: Array<ControlState | null> = [];
  if (target.kind === 'boxes')
    for (const pid of (target.controls[0]?.boxes ?? []).slice(0, 40)) boxes.push(await readControl(target, pid));
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
