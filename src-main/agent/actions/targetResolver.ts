import type { Frame, Locator, Page } from 'playwright-core';
import { conceptTokens } from '../autofill/textNorm.ts';
import { FIELD_CONCEPTS } from '../autofill/lexicon.ts';
import { controlNames, describeElements } from '../injected/index.ts';
import { perceivableAcross, searchFrames } from './searchFrames.ts';
import type { TargetKind } from './actionGrammar.ts';
import { PorticoError } from '../../base/errors.ts';

type AriaRole = Parameters<Page['getByRole']>[0];

/** What the target is wanted for: it narrows which roles may answer. */
export type TargetPurpose = 'click' | 'fill' | 'select' | 'check' | 'hover' | 'press' | 'scroll_to' | 'extract';

/** A target that could not be settled: not found, or more than one equally good match. The message is what the caller reads. */
export class TargetError extends PorticoError {
  readonly reason: 'not_found' | 'ambiguous';

  constructor(message: string, reason: 'not_found' | 'ambiguous') {
    super(message);
    this.reason = reason;
  }
}

/** Where targets are looked for: a frame, or one element's inside (a question's group). */
type Scope = Pick<Frame, 'getByRole' | 'getByLabel' | 'getByPlaceholder' | 'getByText'> & {
  locator(selector: string): Locator;
};

const CLICKABLE: AriaRole[] = [
  'button',
  'link',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'checkbox',
  'radio',
  'switch',
  'treeitem',
  'combobox',
  'textbox',
  'searchbox',
  'spinbutton',
  'slider',
];
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
  box: ['checkbox', 'switch', ...FIELD],
  navigable: ['link', 'button', 'tab', 'menuitem'],
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
  click: '*',
  hover: '*',
  press: '*',
  scroll_to: '*',
  extract: '*',
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

function controlsNamed(
  page: Scope,
  name: NameMatch,
  exact: boolean,
  kind: TargetKind,
  purpose: TargetPurpose,
): Locator | undefined {
  const roles = kind === 'any' ? ROLES_BY_PURPOSE[purpose] : ROLES_BY_KIND[kind];
  const locators = roles.map((role) => page.getByRole(role, { name, exact }));
  const labelled =
    kind !== 'group' &&
    (kind === 'any' ||
      kind === 'field' ||
      kind === 'dropdown' ||
      kind === 'checkbox' ||
      kind === 'radio' ||
      kind === 'choice');
  if (labelled) {
    const css = page.locator(
      kind === 'field'
        ? LABELLED_CSS.fill
        : kind === 'dropdown'
          ? LABELLED_CSS.select
          : kind === 'any'
            ? LABELLED_CSS[purpose]
            : LABELLED_CSS.check,
    );
    locators.push(page.getByLabel(name, { exact }).and(css));
    if (kind === 'any' || kind === 'field') locators.push(page.getByPlaceholder(name, { exact }).and(css));
  }
  return union(locators);
}

async function describeAll(locators: Locator[]): Promise<string> {
  const found = await Promise.all(
    locators.map((locator) => locator.evaluateAll(describeElements).catch(() => [] as string[])),
  );
  return found.flat().slice(0, 4).join(', ');
}

export const KIND_WORD: Readonly<Record<TargetKind, string>> = {
  any: 'element',
  button: 'button',
  link: 'link',
  field: 'field',
  checkbox: 'checkbox',
  radio: 'radio button',
  choice: 'checkbox or radio button',
  dropdown: 'dropdown',
  tab: 'tab',
  option: 'option',
  group: 'question',
  box: 'checkbox or text box',
  navigable: 'link or button',
};

/**
 * "box" is a hint, not a filter: a checkbox or a text box. What the action does narrows it (tick → a
 * checkbox, type → a text box); otherwise both are tried and the unambiguous one wins.
 */
function kindsFor(kind: TargetKind, purpose: TargetPurpose): TargetKind[] {
  if (kind !== 'box') return [kind];
  if (purpose === 'check') return ['checkbox'];
  if (purpose === 'fill' || purpose === 'press') return ['field'];
  return ['checkbox', 'field'];
}

type Found = { count: number; only?: Locator; all: Locator[] };

/** Several readings of one kind word: the one that found exactly one element when the others found none or several. */
function preferUnambiguous(results: Found[]): Found {
  const single = results.filter((r) => r.count === 1);
  if (single.length === 1 && single[0]) return single[0];
  return { count: results.reduce((n, r) => n + r.count, 0), all: results.flatMap((r) => r.all) };
}

const CONCEPTS: ReadonlySet<string> = new Set(FIELD_CONCEPTS.map(([concept]) => concept));
const CONTROL_CSS =
  'input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]):not([type=image]), select, textarea, [role=textbox], [role=combobox], [role=listbox], [role=checkbox], [role=radio], [role=switch], [contenteditable=""], [contenteditable=true]';

/**
 * Whether a control's name means what the action named, by the filler's lexicon: the same concepts
 * ("first name" ~ "Given name"), or every concept named and at least one of them a lexicon concept
 * ("first name" ~ "First or given name"). Sharing a plain word is never enough.
 */
function sameConcept(wanted: readonly string[], name: string): 'same' | 'contains' | undefined {
  const tokens = conceptTokens(name);
  if (!tokens.length) return undefined;
  if (tokens.join(' ') === wanted.join(' ')) return 'same';
  const set = new Set(tokens);
  return wanted.every((t) => set.has(t)) && wanted.some((t) => CONCEPTS.has(t)) ? 'contains' : undefined;
}

/** The lexicon tier: control names on the page that mean the target's name, each resolved by its exact name. */
async function byMeaning(
  scopes: Scope[],
  name: string,
  kind: TargetKind,
  purpose: TargetPurpose,
): Promise<Found | undefined> {
  const wanted = conceptTokens(name);
  if (!wanted.length || !wanted.some((t) => CONCEPTS.has(t))) return undefined;
  const css =
    kind === 'group'
      ? 'fieldset, [role=group], [role=radiogroup]'
      : kind === 'dropdown'
        ? LABELLED_CSS.select
        : kind === 'field'
          ? LABELLED_CSS.fill
          : purpose === 'check' || kind === 'checkbox' || kind === 'radio' || kind === 'choice'
            ? LABELLED_CSS.check
            : purpose === 'fill'
              ? LABELLED_CSS.fill
              : purpose === 'select'
                ? LABELLED_CSS.select
                : CONTROL_CSS;
  const names = (
    await Promise.all(
      scopes.map((scope) =>
        scope
          .locator(css)
          .evaluateAll(controlNames)
          .catch(() => [] as string[][]),
      ),
    )
  ).flat(2);
  for (const level of ['same', 'contains'] as const) {
    const matching = [...new Set(names.filter((n) => sameConcept(wanted, n) === level))];
    if (!matching.length) continue;
    const results = await Promise.all(
      matching.map((label) =>
        perceivableAcross(
          scopes,
          (frame) =>
            (
              controlsNamed(frame, label, true, kind === 'box' ? 'any' : kind, purpose) ?? frame.locator(':not(*)')
            ).filter({ visible: true }),
          false,
        ),
      ),
    );
    const found = preferUnambiguous(results);
    if (found.count > 0) return found;
  }
  return undefined;
}

/**
 * The one element an action names, as a person sees the page: by accessible name, label, placeholder,
 * then visible text, strictest match first, then by meaning (the filler's lexicon). Only what a person
 * can perceive counts: never aria-hidden, inert, visually hidden text or what an open modal covers.
 * Two equally good matches, or none, throw TargetError: it never picks a look-alike.
 */
export async function resolveTarget(
  page: Page,
  target: { name: string; kind: TargetKind; quoted: boolean },
  purpose: TargetPurpose,
  within?: Locator,
): Promise<Locator> {
  const name = target.name.replace(/\s+/g, ' ').trim();
  const what = `${KIND_WORD[target.kind]} ${JSON.stringify(name)}`;
  if (!name) throw new TargetError('No element found: the target has an empty name', 'not_found');
  const scopes: Scope[] = within ? [within] : await searchFrames(page);
  const kinds = kindsFor(target.kind, purpose);
  const settle = async (found: Found, how: string): Promise<Locator | undefined> => {
    if (found.count === 1 && found.only) return found.only;
    if (found.count > 1)
      throw new TargetError(
        `Ambiguous target: ${found.count} elements match ${what} ${how} (${await describeAll(found.all)}); name it more precisely`,
        'ambiguous',
      );
    return undefined;
  };
  for (const strength of strengths(name, target.quoted)) {
    // One match across the page and its iframes; the same name in two frames is as ambiguous as twice in one.
    const controls = preferUnambiguous(
      await Promise.all(
        kinds.map((kind) =>
          perceivableAcross(
            scopes,
            (frame) =>
              (controlsNamed(frame, strength.match, strength.exact, kind, purpose) ?? frame.locator(':not(*)')).filter({
                visible: true,
              }),
            false,
          ),
        ),
      ),
    );
    const control = await settle(controls, strength.label);
    if (control) return control;
    if (target.kind === 'any' && TEXT_PURPOSES.has(purpose)) {
      const text = await settle(
        await perceivableAcross(
          scopes,
          (frame) => frame.getByText(strength.match, { exact: strength.exact }).filter({ visible: true }),
          true,
        ),
        strength.label,
      );
      if (text) return text;
    }
  }
  if (
    !target.quoted &&
    target.kind !== 'link' &&
    target.kind !== 'button' &&
    target.kind !== 'tab' &&
    target.kind !== 'navigable'
  ) {
    const meant = await byMeaning(scopes, name, target.kind, purpose);
    if (meant) {
      const found = await settle(meant, 'by meaning');
      if (found) return found;
    }
  }
  throw new TargetError(`No ${what} found ${within ? 'there' : 'on the page'}`, 'not_found');
}
