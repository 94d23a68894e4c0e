import { AgentFailure, type AgentContext } from '../agentTypes.ts';
import { dateOrderFromHint, dateReadings, formatDate, isoDate, looksLikeDateField, parseDateValue } from './dates.ts';
import type { Entry } from './entries.ts';
import { askOrFail } from './questions.ts';
import type { Target } from './targets.ts';

/** Does the target need an exact date (so a value read two ways cannot go in verbatim)? */
function wantsExactDate(entry: Entry, target: Target): boolean {
  if (target.kind === 'date' || target.kind === 'dateSplit' || target.kind === 'calendar') return true;
  if (!['text', 'textarea', 'combobox', 'editable'].includes(target.kind)) return false;
  const c = target.controls[0];
  return (
    entry.format === 'date' ||
    looksLikeDateField([target.label, c?.placeholder, c?.describedBy, c?.name, c?.id].join(' '))
  );
}

/**
 * A numeric date valid both ways (10/12/1990: 10 December or 12 October) going into a date field:
 * the schema's hints decide (format/title/description naming DD/MM/YYYY or MM/DD/YYYY), else a
 * human picks, else the job fails saying how to make it unambiguous. Returns the value to use
 * (ISO once settled; unchanged when there is nothing to settle).
 */
export async function settleAmbiguousDate(
  ctx: AgentContext,
  entry: Entry,
  target: Target,
  value: unknown,
): Promise<unknown> {
  const readings = dateReadings(value);
  if (readings.length !== 2 || !wantsExactDate(entry, target)) return value;
  const order = dateOrderFromHint([entry.format, entry.title, entry.description].join(' '));
  if (order) {
    const settled = parseDateValue(value, order);
    if (settled) return isoDate(settled);
  }
  const options = readings.map((d) => formatDate(d, 'D MMMM YYYY'));
  const answer = await askOrFail(
    ctx,
    {
      question: `Which date is '${String(value)}' for '${target.label}'?`,
      options,
      message: `form_data '${entry.key}' reads as ${options[0]} (day first) or ${options[1]} (month first).`,
    },
    `form_data '${entry.key}' is the ambiguous date '${String(value)}' (${options[0]} or ${options[1]}) and '${target.label}' needs an exact date; give it as YYYY-MM-DD or name the order in the schema (e.g. a description saying DD/MM/YYYY), or enable human_in_the_loop to be asked`,
  );
  const picked = readings[options.indexOf(answer)] ?? parseDateValue(answer);
  if (!picked)
    throw new AgentFailure(
      `The answer '${answer}' for '${target.label}' is not one of the dates offered (${options.join(', ')})`,
    );
  return isoDate(picked);
}
