// Filling the widgets injected/ariaScan.ts finds: ARIA radios/checkboxes/switches, select-only comboboxes
// opening a listbox of option elements, and contenteditable text boxes. Every fill is checked
// against what the widget then shows (aria-checked, the displayed value, its hidden input).
import type { Locator } from 'playwright-core';

import { AgentFailure } from '../agentTypes.ts';
import { findListbox, readOptions } from '../injected/index.ts';
import { click, locate, optionProblem, shownValue, typeKeys, waitFor, type FillEnv, type FillResult } from './fillBase.ts';
import type { ScannedControl } from './pageScan.ts';
import type { Target } from './targets.ts';
import { loose } from './textNorm.ts';
import { asText, findChoice, realChoices, sameValue } from './valueAdapter.ts';

/** The widget's state: aria-checked, aria-pressed (toggle buttons), else the `checked` property (form-associated custom elements keep their ARIA state in ElementInternals). */
async function ariaChecked(loc: Locator): Promise<boolean> {
  return loc.evaluate((el) => {
    const state = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
    return state !== null ? state === 'true' : (el as HTMLInputElement).checked === true;
  });
}

/** Sets an ARIA radio, checkbox or switch: a click, then Space on it (the APG keyboard way) if the click did not take. */
export async function setAriaChecked(env: FillEnv, target: Target, control: ScannedControl, checked: boolean, what: string): Promise<void> {
  const loc = locate(target, control);
  if ((await ariaChecked(loc)) === checked) return;
  const settled = (): Promise<boolean> => waitFor(async () => (await ariaChecked(loc)) === checked, 500);
  // A switch drawn under its own label (Carbon's Toggle) cannot take a pointer click: Space on it can.
  const clickable = await loc.click({ trial: true, timeout: 1000 }).then(() => true, () => false);
  if (clickable) {
    await click(env, loc);
    if (await settled()) return;
  }
  await loc.focus();
  await env.page.keyboard.press('Space');
  if (await settled()) return;
  throw new AgentFailure(`'${target.label}': ${what} stayed ${checked ? 'unchecked' : 'checked'} after a click and Space (aria-checked did not change)`);
}

/** Opens the listbox of a select-only combobox (click, else focus + ArrowDown) and returns its options. */
async function openListbox(env: FillEnv, target: Target, trigger: Locator): Promise<Locator | null> {
  const token = (target.controls[0] as ScannedControl).pid;
  const options = target.frame.locator(`[data-portico-option="${token}"]:visible`);
  const found = (): Promise<boolean> => trigger.evaluate(findListbox, { token, mark: false });
  await trigger.evaluate(findListbox, { token, mark: true });
  // A visually hidden focusable trigger (an input clipped to 1px under the drawn box) cannot be clicked:
  // it opens from the keyboard, the APG way (ArrowDown on the focused combobox).
  const clickable = await trigger.click({ trial: true, timeout: 600 }).then(() => true, () => false);
  if (!clickable) {
    await trigger.focus();
    await env.page.keyboard.press('ArrowDown');
    if (await waitFor(found, 1500)) return options;
  }
  if ((await trigger.getAttribute('aria-expanded')) !== 'true') await click(env, trigger);
  if (await waitFor(found, 1500)) return options;
  await trigger.focus();
  await env.page.keyboard.press('ArrowDown');
  return (await waitFor(found, 1000)) ? options : null;
}

/** Chooses the option meaning `value` in a select-only combobox and checks the widget took it. */
export async function fillListbox(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  const trigger = locate(target);
  const control = target.controls[0] as ScannedControl;
  const hidden = control.hiddenPid ? target.frame.locator(`[data-portico-id="${control.hiddenPid}"]`) : null;
  const hiddenValue = async (): Promise<string> => (hidden ? hidden.inputValue().catch(() => '') : '');
  const before = await hiddenValue();
  let options = await openListbox(env, target, trigger);
  if (!options) throw new AgentFailure(`'${target.label}' did not open its list of options (clicked it, then pressed ArrowDown)`);
  const all = (await options.evaluateAll(readOptions)).map((o, index) => ({ ...o, index }));
  const enabled = realChoices(all.filter((o) => !o.disabled && o.label));
  const match = findChoice(value, enabled);
  if (!('how' in match)) {
    await env.page.keyboard.press('Escape');
    throw optionProblem(target, asText(value), match.index, enabled.map((o) => o.label));
  }
  const choice = enabled[match.index] as (typeof enabled)[number];
  const took = async (): Promise<boolean> => {
    const now = await hiddenValue();
    if (now && (now !== before || now === choice.value || sameValue(now, choice.label, false))) return true;
    return loose(await shownValue(trigger)).includes(loose(choice.label));
  };
  await click(env, options.nth(choice.index));
  if (!(await waitFor(took, 800))) {
    // Some lists select on Enter over the active option rather than on click.
    options = await openListbox(env, target, trigger);
    const option = options?.nth(choice.index);
    if (option) {
      await option.hover().catch(() => undefined);
      await option.focus().catch(() => undefined);
      await env.page.keyboard.press('Enter');
    }
    if (!(await waitFor(took, 800))) throw new AgentFailure(`'${target.label}' does not show '${choice.label}' after choosing it from its list`);
  }
  // A list left open (multi-select, or a slow close) would swallow the next click on the page.
  if (await options?.first().isVisible().catch(() => false)) await env.page.keyboard.press('Escape');
  return { shown: choice.label, how: match.how };
}

/** Types into a contenteditable element; editors that ignore inserted text get real key presses. */
export async function fillEditable(env: FillEnv, target: Target, text: string): Promise<string> {
  const loc = locate(target);
  const shown = async (): Promise<string> => (await loc.innerText()).replace(/\u200b/g, '').trim();
  if (env.human) await env.human.fill(loc, text);
  else await loc.fill(text, { timeout: 5000 });
  let now = await shown();
  if (!sameValue(now, text, false)) {
    env.log(`${target.label}: text did not stick after fill, typing key by key`);
    await typeKeys(env, loc, text);
    now = await shown();
    if (!sameValue(now, text, false)) throw new AgentFailure(`'${target.label}' shows ${JSON.stringify(now.slice(0, 80))} after typing into it`);
  }
  await loc.blur().catch(() => undefined);
  return now;
}
