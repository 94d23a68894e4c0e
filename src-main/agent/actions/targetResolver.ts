import type { Frame, Locator, Page } from 'playwright-core';
import { countAcross, searchFrames } from './searchFrames.ts';
import type { TargetKind } from './actionGrammar.ts';

type AriaRole = Parameters<Page['getByRole']>[0];

/** What the target is wanted for: it narrows which roles may answer. */
export type TargetPurpose = 'click' | 'fill' | 'select' | 'check' | 'hover' | 'press' | 'scroll_to' | 'extract';

/** A target that could not be settled: not found, or more than one equally good match. The message is what the caller reads. */
export class TargetError extends Error {
  readonly reason: 'not_found' | 'ambiguous';

  constructor(message: string, reason: 'not_found' | 'ambiguous') {
    super(message);
    this.name = 'TargetError';
    this.reason = reason;
  }
}

/** Where targets are looked for: a frame, or one element's inside (a question's group). */
type Scope = Pick<Frame, 'getByRole' | 'getByLabel' | 'getByPlaceholder' | 'getByText'> & { locator(selector: string): Locator };

const CLICKABLE: AriaRole[] = ['button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'checkbox', 'radio', 'switch', 'treeitem', 'combobox', 'textbox', 'searchbox', 'spinbutton', 'slider'];
const FIELD: AriaRole[] = ['textbox', 'searchbox', 'combobox', 'spinbutton'];
const CHOICE: AriaRole[] = ['radio', 'checkbox', 'switch', 'option', 'menuitemradio', 'menuitemcheckbox'];

const ROLES_BY_KIND: Readonly<Record<Exclude<TargetKind, 'any'>, AriaRole[]>> = {
  button: ['button'],
  link: ['link'],
  tab: ['tab'],
  option: ['option', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'radio'],
  checkbox: ['checkbox', 'switch', 'menuitemcheckbox'],
  radio: ['radio', 'menuitemradio'],
  choice: CHOICE,
  dropdown: ['combobox', 'listbox'],
  field: FIELD,
  group: ['group', 'radiogroup'],
};

const ROLES_BY_PURPOSE: Readonly<Record<TargetPurpose, AriaRole[]>> = {
  click: CLICKABLE,
  hover: [...CLICKABLE, 'heading', 'img'],
  press: [...FIELD, ...CLICKABLE],
  scroll_to: [...CLICKABLE, 'heading', 'img'],
  extract: [...CLICKABLE, 'heading', 'cell', 'status', 'alert', 'paragraph'],
  fill: FIELD,
  select: ['combobox', 'listbox'],
  check: CHOICE,
};

/** Elements a label or placeholder may name for this purpose (a label also names checkboxes, which are not typed into). */
const LABELLED_CSS: Readonly<Record<TargetPurpose, string>> = {
  fill: 'input:not([type=checkbox]):not([type=radio]):not([type=submit]):not([type=button]):not([type=reset]):not([type=hidden]):not([type=image]):not([type=file]), textarea, select, [contenteditable=""], [contenteditable=true]',
  select: 'select, [role=combobox], [role=listbox]',
  check: 'input[type=checkbox], input[type=radio], [role=checkbox], [role=radio], [role=switch]',
  click: '*', hover: '*', press: '*', scroll_to: '*', extract: '*',
};

/** Purposes where plain visible text (not a control's name) may be the target. */
const TEXT_PURPOSES: ReadonlySet<TargetPurpose> = new Set(['click', 'hover', 'scroll_to', 'extract']);

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type NameMatch = string | RegExp;

/** From strictest to loosest: exactly as written, the same ignoring case, then (unquoted only) contained in. */
function strengths(name: string, quoted: boolean): Array<{ match: NameMatch; exact: boolean; label: string }> {
  const list: Array<{ match: NameMatch; exact: boolean; label: string }> = [
    { match: name, exact: true, label: 'exactly' },
    { match: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`, 'i'), exact: false, label: 'ignoring case' },
  ];
  if (!quoted) list.push({ match: name, exact: false, label: 'partly' });
  return list;
}

function union(locators: Locator[]): Locator | undefined {
  return locators.reduce<Locator | undefined>((acc, l) => (acc ? acc.or(l) : l), undefined);
}

function controlsNamed(page: Scope, name: NameMatch, exact: boolean, kind: TargetKind, purpose: TargetPurpose): Locator | undefined {
  const roles = kind === 'any' ? ROLES_BY_PURPOSE[purpose] : ROLES_BY_KIND[kind];
  const locators = roles.map((role) => page.getByRole(role, { name, exact }));
  const labelled = kind !== 'group' && (kind === 'any' || kind === 'field' || kind === 'dropdown' || kind === 'checkbox' || kind === 'radio' || kind === 'choice');
  if (labelled) {
    const css = page.locator(kind === 'field' ? LABELLED_CSS.fill : kind === 'dropdown' ? LABELLED_CSS.select : kind === 'any' ? LABELLED_CSS[purpose] : LABELLED_CSS.check);
    locators.push(page.getByLabel(name, { exact }).and(css));
    if (kind === 'any' || kind === 'field') locators.push(page.getByPlaceholder(name, { exact }).and(css));
  }
  return union(locators);
}

async function describeAll(locators: Locator[]): Promise<string> {
  const found = await Promise.all(locators.map((locator) => locator.evaluateAll((els) => els.slice(0, 4).map((el) => {
    const tag = el.tagName.toLowerCase();
    const role = el.getAttribute('role') ?? tag;
    const text = (el.getAttribute('aria-label') || (el as HTMLElement).innerText || el.getAttribute('placeholder') || (el as HTMLInputElement).value || el.getAttribute('name') || '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return `${role} "${text}"`;
  })).catch(() => [] as string[])));
  return found.flat().slice(0, 4).join(', ');
}

const KIND_WORD: Readonly<Record<TargetKind, string>> = {
  any: 'element', button: 'button', link: 'link', field: 'field', checkbox: 'checkbox', radio: 'radio button', choice: 'checkbox or radio button', dropdown: 'dropdown', tab: 'tab', option: 'option', group: 'question',
};

/**
 * The one visible element an action names, by accessible name, label, placeholder, then visible text,
 * strictest match first. Two equally good matches, or none, throw TargetError: it never picks a look-alike.
 */
export async function resolveTarget(page: Page, target: { name: string; kind: TargetKind; quoted: boolean }, purpose: TargetPurpose, within?: Locator): Promise<Locator> {
  const name = target.name.replace(/\s+/g, ' ').trim();
  const what = `${KIND_WORD[target.kind]} ${JSON.stringify(name)}`;
  if (!name) throw new TargetError('No element found: the target has an empty name', 'not_found');
  const scopes: Scope[] = within ? [within] : await searchFrames(page);
  for (const strength of strengths(name, target.quoted)) {
    const tiers: Array<(frame: Scope) => Locator | undefined> = [(frame) => controlsNamed(frame, strength.match, strength.exact, target.kind, purpose)];
    if (target.kind === 'any' && TEXT_PURPOSES.has(purpose)) tiers.push((frame) => frame.getByText(strength.match, { exact: strength.exact }));
    for (const tier of tiers) {
      // One match across the page and its iframes; the same name in two frames is as ambiguous as twice in one.
      const { count, only, all } = await countAcross(scopes, (frame) => (tier(frame) ?? frame.locator(':not(*)')).filter({ visible: true }));
      if (count === 1 && only) return only;
      if (count > 1) throw new TargetError(`Ambiguous target: ${count} elements match ${what} ${strength.label} (${await describeAll(all)}); name it more precisely`, 'ambiguous');
    }
  }
  throw new TargetError(`No ${what} found ${within ? 'there' : 'on the page'}`, 'not_found');
}
