import type { Locator, Page } from 'playwright-core';
import { openUrl } from '../../browser/openUrl.ts';
import type { ActionOp } from './actionGrammar.ts';
import { normaliseText } from '../autofill/lexicon.ts';
import { findChoice } from '../autofill/valueAdapter.ts';
import {
  bodyText,
  clickToggle,
  drawnByLabel as isDrawnByLabel,
  elementText,
  isNativeSelect,
  nativeOptions,
  optionNames,
  pairedValue,
  scrollPage,
  toggleByLabel,
  type TargetFacts,
} from '../injected/index.ts';
import type { TargetIdentity } from './targetIdentity.ts';
import { PorticoError } from '../../base/errors.ts';

/** How long one element operation may wait for its target to be actionable. */
export const ACTION_TIMEOUT_MS = 5_000;
/** How long "wait for" waits for its text. */
export const WAIT_FOR_TEXT_MS = 10_000;
/** Upper bound on text returned by extract. */
export const MAX_EXTRACT_CHARS = 100_000;

/** An operation that ran into the page (timeout, detached element, bad URL): the action fails with this message, the service stays well. */
export class OperationError extends PorticoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** One operation with its values filled in, on its resolved element. */
export interface Operation {
  op: ActionOp;
  text?: string;
  key?: string;
  checked?: boolean;
  direction?: 'up' | 'down' | 'top' | 'bottom';
}

const describeTarget = (target: TargetIdentity | undefined): string =>
  target ? `${target.role} ${JSON.stringify(target.name)}` : 'the page';

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'failed';
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('domcontentloaded', { timeout: 10_000 }).catch(() => undefined);
}

/** Opens an http(s) URL, relative ones against the current page; anything else is refused. */
export function resolveUrl(text: string, current: string): URL {
  const raw = text.trim();
  let url: URL;
  try {
    url =
      /^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('/') || current === 'about:blank'
        ? new URL(raw, current === 'about:blank' ? undefined : current)
        : new URL(`https://${raw}`);
  } catch {
    throw new OperationError(`Not a URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.href === 'about:blank') return url;
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OperationError(`Only http and https URLs can be opened, not ${url.protocol}`);
  return url;
}

async function setChecked(locator: Locator, checked: boolean, facts?: TargetFacts): Promise<void> {
  // An input moved off-screen or shrunk to a pixel (USWDS, sr-only) is never clicked itself: its label is what a person clicks.
  const drawnByLabel = facts?.drawnByLabel ?? (await locator.evaluate(isDrawnByLabel).catch(() => false));
  try {
    if (drawnByLabel) throw new Error('drawn by its label');
    await locator.setChecked(checked, { timeout: ACTION_TIMEOUT_MS });
  } catch (error) {
    // Design systems draw the box on the label and move the input off-screen: its own label toggles it.
    const toggled = await locator.evaluate(toggleByLabel, checked).catch(() => false);
    if (!toggled) throw error;
  }
}

/** "TX - Texas", "Texas (TX)", "TX: Texas": the halves a person may name the option by. */
function labelHalves(label: string): string[] {
  const parts = label
    .split(/\s[—–-]\s|:\s|\s*\(([^)]*)\)\s*/)
    .map((p) => (p ?? '').trim())
    .filter(Boolean);
  return parts.length > 1 ? parts : [];
}

/**
 * The option meant by `wanted`: exactly its label, the same ignoring case, its value; then by the
 * filler's meaning-preserving rules (findChoice: spacing and punctuation, lexicon synonyms such as
 * "Texas" ~ "TX"); then a whole half of a coded label ("Texas" or "TX" for "TX - Texas"). A shared
 * word is never enough; two options at the first rule that matches are ambiguous.
 */
export function chooseOption(
  wanted: string,
  options: ReadonlyArray<{ label: string; value: string }>,
): number | 'ambiguous' | undefined {
  const exact = [
    (o: { label: string }) => o.label === wanted,
    (o: { label: string }) => o.label.toLowerCase() === wanted.toLowerCase(),
    (o: { value: string }) => o.value === wanted,
  ]
    .map((test) => options.findIndex(test))
    .find((i) => i >= 0);
  if (exact !== undefined) return exact;
  const choices = options.map((o) => ({ label: o.label, value: o.value }));
  const found = findChoice(wanted, choices);
  if (found.index >= 0) return found.index;
  if (found.index === -2) return 'ambiguous';
  const norm = normaliseText(wanted);
  const halves = options
    .map((o, i) => (labelHalves(o.label).some((h) => normaliseText(h) === norm) ? i : -1))
    .filter((i) => i >= 0);
  if (halves.length === 1) return halves[0];
  return halves.length > 1 ? 'ambiguous' : undefined;
}

async function selectOption(page: Page, locator: Locator, option: string, facts?: TargetFacts): Promise<void> {
  const isNative = facts?.native ?? (await locator.evaluate(isNativeSelect));
  const wanted = option.replace(/\s+/g, ' ').trim();
  if (isNative) {
    // Read the options once: a missing option fails at once instead of after two selectOption timeouts.
    const options = facts?.options ?? (await locator.evaluate(nativeOptions));
    const index = chooseOption(wanted, options);
    if (index === 'ambiguous')
      throw new OperationError(
        `Ambiguous option ${JSON.stringify(option)}: several options of the dropdown could mean it`,
      );
    if (index === undefined)
      throw new OperationError(
        `No option ${JSON.stringify(option)} in the dropdown; options are ${JSON.stringify(options.slice(0, 20).map((o) => o.label))}`,
      );
    await locator.selectOption({ index }, { timeout: ACTION_TIMEOUT_MS });
    return;
  }
  // A custom combobox: open it, then the option meant (its name as written first).
  await locator.click({ timeout: ACTION_TIMEOUT_MS });
  const shown = page.getByRole('option').filter({ visible: true });
  // The list may render a moment after the click.
  await shown
    .first()
    .waitFor({ state: 'visible', timeout: 2_000 })
    .catch(() => undefined);
  const names = await shown.evaluateAll(optionNames);
  const exactCount = names.filter((n) => n.label === wanted).length;
  if (exactCount > 1)
    throw new OperationError(`Ambiguous option ${JSON.stringify(option)}: ${exactCount} options match`);
  const index = exactCount === 1 ? names.findIndex((n) => n.label === wanted) : chooseOption(wanted, names);
  if (index === 'ambiguous')
    throw new OperationError(`Ambiguous option ${JSON.stringify(option)}: several options could mean it`);
  if (index === undefined) throw new OperationError(`No option ${JSON.stringify(option)} in the dropdown`);
  await shown.nth(index).click({ timeout: ACTION_TIMEOUT_MS });
}

/** Reads the text of an element (a field's value) or of the whole page. */
async function extractText(page: Page, locator: Locator | undefined, read?: TargetFacts['read']): Promise<string> {
  // A label's value (summary list key → its value, table header → its cell, label → its field), never the label.
  const paired = read ? ('text' in read ? null : read) : locator ? await locator.evaluate(pairedValue) : null;
  if (paired && 'ambiguous' in paired)
    throw new OperationError(`That header heads ${paired.ambiguous} rows: name the row too`);
  if (paired)
    return paired.value
      .replace(/[ \t]+\n/g, '\n')
      .trim()
      .slice(0, MAX_EXTRACT_CHARS);
  const text =
    read && 'text' in read ? read.text : locator ? await locator.evaluate(elementText) : await page.evaluate(bodyText);
  // A password field may hold a secret typed from a variable: it is never read back.
  if (text === null) throw new OperationError('A password field is never read back');
  return text
    .replace(/[ \t]+\n/g, '\n')
    .trim()
    .slice(0, MAX_EXTRACT_CHARS);
}

/**
 * Performs one operation and says what it did (the `result`); page failures become OperationError
 * with the first line of Playwright's message. Typed text is never echoed: it may be a secret.
 */
export async function perform(
  page: Page,
  operation: Operation,
  locator: Locator | undefined,
  target: TargetIdentity | undefined,
  facts?: TargetFacts,
): Promise<string> {
  const on = describeTarget(target);
  try {
    switch (operation.op) {
      case 'goto': {
        const url = resolveUrl(operation.text ?? '', page.url());
        await openUrl(page, url.href, { waitUntil: 'load', timeout: 30_000 });
        return `Opened ${page.url()}`;
      }
      case 'click': {
        // A design-system checkbox or radio draws its box on the label and moves the input aside: clicking it means toggling it.
        const toggle = facts?.toggle !== undefined ? facts.toggle : await need(locator).evaluate(clickToggle);
        if (toggle !== null) {
          await setChecked(need(locator), toggle, facts);
          return `Clicked ${on}`;
        }
        await need(locator).click({ timeout: ACTION_TIMEOUT_MS });
        await settle(page);
        return `Clicked ${on}`;
      }
      case 'fill': {
        const field = need(locator);
        const isSelect = facts?.native ?? (await field.evaluate(isNativeSelect));
        if (isSelect) await selectOption(page, field, operation.text ?? '', facts);
        else await field.fill(operation.text ?? '', { timeout: ACTION_TIMEOUT_MS });
        return `Filled ${on}`;
      }
      case 'select':
        await selectOption(page, need(locator), operation.text ?? '', facts);
        return `Selected ${JSON.stringify(operation.text ?? '')} in ${on}`;
      case 'check':
        await setChecked(need(locator), operation.checked !== false, facts);
        return `${operation.checked === false ? 'Unchecked' : 'Checked'} ${on}`;
      case 'press':
        if (locator) await locator.press(operation.key ?? '', { timeout: ACTION_TIMEOUT_MS });
        else await page.keyboard.press(operation.key ?? '');
        await settle(page);
        return `Pressed ${operation.key ?? ''}${locator ? ` in ${on}` : ''}`;
      case 'hover':
        await need(locator).hover({ timeout: ACTION_TIMEOUT_MS });
        return `Hovered over ${on}`;
      case 'scroll': {
        const direction = operation.direction ?? 'down';
        await page.evaluate(scrollPage, direction);
        return `Scrolled ${direction === 'top' || direction === 'bottom' ? `to the ${direction}` : direction}`;
      }
      case 'scroll_to':
        await need(locator).scrollIntoViewIfNeeded({ timeout: ACTION_TIMEOUT_MS });
        return `Scrolled to ${on}`;
      case 'wait_for_text': {
        const text = operation.text ?? '';
        await page
          .getByText(text)
          .first()
          .waitFor({ state: 'visible', timeout: WAIT_FOR_TEXT_MS })
          .catch(() => {
            throw new OperationError(`Text ${JSON.stringify(text)} did not appear within ${WAIT_FOR_TEXT_MS / 1000} s`);
          });
        return `Text ${JSON.stringify(text)} is shown`;
      }
      case 'extract':
        return await extractText(page, locator, facts?.read);
    }
  } catch (error) {
    if (error instanceof OperationError) throw error;
    if (error instanceof Error && isPageError(error))
      throw new OperationError(`Could not ${operation.op.replace('_', ' ')} ${on}: ${firstLine(error)}`, {
        cause: error,
      });
    throw error;
  }
}

function need(locator: Locator | undefined): Locator {
  if (!locator) throw new OperationError('This action needs a target element');
  return locator;
}

/** Playwright's failures of an operation on the page (timeouts, navigation, detached or covered elements), as opposed to bugs. */
function isPageError(error: Error): boolean {
  return (
    error.name === 'TimeoutError' ||
    /^(locator|page|elementHandle|frame|keyboard|mouse)\./.test(error.message) ||
    /net::ERR_|Navigation|Target (page|closed)|Execution context was destroyed/.test(error.message)
  );
}
