// Filling the widgets injected/ariaScan.ts finds: ARIA radios/checkboxes/switches, select-only comboboxes
// opening a listbox of option elements, and contenteditable text boxes. Every fill is checked
// against what the widget then shows (aria-checked, the displayed value, its hidden input).
import type { Locator } from 'playwright-core';

import { AgentFailure } from '../agentTypes.ts';
import {
  ariaCheckedState,
  cascadeLabels,
  clickSettled,
  findListbox,
  framesDrawn,
  listTakesMany,
  markCascadeList,
  markFilterBox,
  markListsBefore,
  nextTreeItem,
  optionStates,
  optionsCheckable,
  readOptions,
  treeNodes,
  type FindListboxArgs,
} from '../injected/index.ts';
import {
  click,
  FillProblem,
  locate,
  markOf,
  optionProblem,
  pointerHit,
  pointerReaches,
  readControl,
  shownValue,
  typeKeys,
  waitFor,
  type FillEnv,
  type FillResult,
  type MarkedControl,
} from './fillBase.ts';
import type { ClickSettledArgs } from '../injected/scanTypes.ts';
import type { ScannedControl } from './frameScan.ts';
import { watchClick } from './navigation.ts';
import type { Target } from './targets.ts';
import { loose } from './textNorm.ts';
import { asText, findChoice, realChoices, sameValue, type ChoiceLike, type PlacementHow } from './valueAdapter.ts';
import { findPathNode, matchAll, type PathNode, valuePath } from './widgetValues.ts';

/** The widget's state: aria-checked, aria-pressed (toggle buttons), else the `checked` property (form-associated custom elements keep their ARIA state in ElementInternals). */
async function ariaChecked(loc: Locator, at: MarkedControl): Promise<boolean> {
  return readControl(at.frame, at.pid, 'ariaCheckedState', () => loc.evaluate(ariaCheckedState));
}

/** Whether the list `trigger` opened is found (marked for the filler), or with `mark` only noting the lists open now (findListbox.ts). */
async function listFound(trigger: Locator, at: MarkedControl, args: FindListboxArgs): Promise<boolean> {
  return readControl(at.frame, at.pid, 'findListbox', () => trigger.evaluate(findListbox, args), { listbox: args });
}

/** Sets an ARIA radio, checkbox or switch: a click, then Space on it (the APG keyboard way) if the click did not take; a state that flips back fails. */
export async function setAriaChecked(
  env: FillEnv,
  target: Target,
  control: ScannedControl,
  checked: boolean,
  what: string,
): Promise<void> {
  const loc = locate(target, control);
  const at = markOf(target, control);
  // Its state and the hit test before a click are read together (one round trip): neither changes it.
  const [now, hit] = await Promise.all([ariaChecked(loc, at), pointerHit(loc, at)]);
  if (now === checked) return;
  const reached = (ms: number): Promise<boolean> =>
    waitFor(async () => (await ariaChecked(loc, at)) === checked, ms, 50);
  // A switch drawn under its own label (Carbon's Toggle) cannot take a pointer click: Space on it can.
  const clickable = (await pointerReaches(loc, 1000, at, hit)) === 'self';
  const started = performance.now();
  if (clickable) {
    await click(env, loc);
    if (await reached(1500)) return;
  }
  // The click did not take (a widget listening on an inner box only): Space, the APG keyboard way.
  // The locator's press focuses the widget first (what a focus call did), then presses: one call.
  await loc.press('Space');
  if (!(await reached(env.budget.ms())))
    throw new AgentFailure(
      `'${target.label}': ${what} stayed ${checked ? 'unchecked' : 'checked'} after ${clickable ? 'a click and Space' : 'Space'} (aria-checked did not change)`,
    );
  if (!clickable) return;
  // A widget that answers late may answer the click too, after the Space: it would toggle back once this
  // check has passed. The state must hold for as long again as the widget took to answer, else the job
  // fails saying so, and nothing is sent.
  const answeredInMs = performance.now() - started;
  if (await waitFor(async () => (await ariaChecked(loc, at)) !== checked, answeredInMs + 500, 50))
    throw new AgentFailure(
      `'${target.label}': ${what} changed again after a click and then Space (the widget answered the click late, ${Math.round(answeredInMs)} ms); not sent rather than sent ${checked ? 'unchecked' : 'checked'}`,
    );
}

/** Opens the listbox of a select-only combobox (click, else focus + ArrowDown) and returns its options. */
async function openListbox(env: FillEnv, target: Target, trigger: Locator): Promise<Locator | null> {
  const opened = await openList(env, target, trigger, false);
  return opened === 'cascade' ? null : opened;
}

/**
 * How long a list that opened holding items but no options (a cascader's, markCascadeList.ts) is given to
 * show options after all (a list that draws a placeholder row first) before it is taken as a cascader.
 */
const CASCADE_CONFIRM_MS = 150;

/**
 * Frames a page must have drawn since a press before a list still not there after the press's wait is
 * taken as not opened by it: a page that drew a second of frames (at 60 Hz) has answered the press (a
 * list is drawn in the frame after the widget's state changed; a quiet page draws ~90 in the 1.5 s wait,
 * so this costs nothing there). A page that drew fewer is too busy to have answered yet (a loaded
 * machine: the list of carbon-leave-request came after the fixed 1.5 s and the ArrowDown's 1 s) and is
 * waited for; another press then would meet a list opening late, or close it.
 */
const LIST_FRAMES = 60;

/**
 * How long a key that changed nothing in the page (no node, text or attribute) is given to change something
 * before it is taken as opening nothing; any change ends the wait at once (then the list is waited for).
 */
const KEY_SETTLE: ClickSettledArgs = { start: false, firstMs: 300, quietMs: 0, maxMs: 300 };

/** How long a page whose frames are read but do not advance (its animation frames held back) is given before the clock alone decides. */
const FRAMES_STILL_MS = 1000;

/** How long the page's frame count goes on after each read of it (its reads may come slowly on a loaded machine). */
const FRAMES_KEEP_MS = 3000;

/**
 * Waits for `found` after a press: `ms`, then for as long as the page has drawn fewer than LIST_FRAMES
 * frames since the press, up to the job's budget (injected/framesDrawn.ts counts them). A page that
 * draws no frames (hidden, or its animation frames held back) is judged by the clock alone, as before.
 */
async function waitForList(env: FillEnv, target: Target, found: () => Promise<boolean>, ms: number): Promise<boolean> {
  const count = (start: boolean, keepMs: number): Promise<number> =>
    target.frame.evaluate(framesDrawn, { start, keepMs }).catch(() => -1);
  // The count starts with the first look for the list (the page runs it first), not before it; it is
  // stopped, unawaited, once the list is there (the page draws no frames for it afterwards).
  const started = count(true, ms + FRAMES_KEEP_MS);
  const stop = (): true => {
    void count(false, 0);
    return true;
  };
  if (await waitFor(found, ms)) return stop();
  if ((await started) < 0) return false;
  const deadline = Date.now() + env.budget.ms();
  let last = -1;
  let lastAt = Date.now();
  for (;;) {
    const frames = await count(false, FRAMES_KEEP_MS);
    if (frames !== last) {
      last = frames;
      lastAt = Date.now();
    }
    if (frames < 0 || frames >= LIST_FRAMES || Date.now() - lastAt >= FRAMES_STILL_MS || Date.now() >= deadline)
      return (await found().catch(() => false)) && stop();
    if (await waitFor(found, 100)) return stop();
  }
}

/** What openList reads of a list's trigger before anything is pressed (`listBefore`). */
type ListBefore = Promise<readonly [unknown, 'self' | 'label' | 'none', string | null]>;

/**
 * The reads of a list's trigger before anything is pressed, sent together (none changes what the others
 * read): the lists already open marked as not this one's, whether the pointer reaches the trigger, and
 * whether it says it is expanded. fillListbox sends them with its own first reads (one round trip).
 */
function listBefore(target: Target, trigger: Locator): ListBefore {
  const token = (target.controls[0] as ScannedControl).pid;
  const at = markOf(target);
  return Promise.all([
    listFound(trigger, at, { token, mark: true }),
    pointerReaches(trigger, 600, at),
    trigger.getAttribute('aria-expanded'),
  ] as const);
}

/**
 * Opens the list of a select-only combobox (click, else focus + ArrowDown): its options, or with `cascade`
 * 'cascade' when what opened is a cascader's list (marked data-portico-cascade; markListsBefore.ts must
 * have run before), or null when nothing opened. Each wait ends when either kind of list is there.
 */
async function openList(
  env: FillEnv,
  target: Target,
  trigger: Locator,
  cascade: boolean,
  before: ListBefore = listBefore(target, trigger),
): Promise<Locator | 'cascade' | null> {
  const token = (target.controls[0] as ScannedControl).pid;
  const options = target.frame.locator(`[data-portico-option="${token}"]:visible`);
  const at = markOf(target);
  const listed = (): Promise<boolean> => listFound(trigger, at, { token, mark: false });
  let cascaded = false;
  const found = async (): Promise<boolean> => {
    if (await listed()) return true;
    cascaded = cascade && (await target.frame.evaluate(markCascadeList, token));
    return cascaded;
  };
  // A list with items and no options yet may still draw its options (a loading row first): a moment for them.
  const opened = async (): Promise<Locator | 'cascade'> =>
    cascaded && !(await waitFor(listed, CASCADE_CONFIRM_MS)) ? 'cascade' : options;
  // Before anything is pressed (listBefore): lists already open marked for this control, whether the pointer
  // reaches the trigger, and whether it says it is expanded.
  // A visually hidden focusable trigger (an input clipped to 1px under the drawn box) cannot be clicked:
  // it opens from the keyboard, the APG way (ArrowDown on the focused combobox).
  const [, reaches, expanded] = await before;
  const clickable = reaches === 'self';
  if (!clickable) {
    await trigger.focus();
    // Watched from the key on: a key the page did not answer with any change at all opened nothing, and the
    // click where the trigger is drawn follows at once (a PrimeReact CascadeSelect's hidden input waited out
    // the whole list wait for it: ~1.5 s a job). A page that changed in any way is waited for as before.
    const watching = await watchClick(target.frame);
    await env.page.keyboard.press('ArrowDown');
    const answered = watching ? await target.frame.evaluate(clickSettled, KEY_SETTLE).catch(() => null) : null;
    const unanswered = answered?.clicked === true && !answered.changed;
    if (unanswered ? await found() : await waitForList(env, target, found, 1500)) return opened();
  }
  // Expanded as read before any press, or since the keyboard's try (which found no list).
  if ((clickable ? expanded : await trigger.getAttribute('aria-expanded')) !== 'true') {
    if (clickable) await click(env, trigger);
    else await clickWhereDrawn(env, trigger);
  }
  if (await waitForList(env, target, found, 1500)) return opened();
  await trigger.focus();
  await env.page.keyboard.press('ArrowDown');
  return (await waitForList(env, target, found, 1000)) ? opened() : null;
}

/** A click where a visually hidden trigger's box is drawn (what a person clicks: the box over it). */
async function clickWhereDrawn(env: FillEnv, trigger: Locator): Promise<void> {
  const box = await trigger.boundingBox();
  if (box) await env.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

/**
 * The filter box of an open list's popup (a text input with no name beside the list, inside the
 * popup: below any ancestor holding the trigger), typed with `text`; the list's options once it
 * re-rendered, or null when the popup has no filter box or the list did not change.
 */
async function filterList(env: FillEnv, target: Target, trigger: Locator, text: string): Promise<Locator | null> {
  const token = (target.controls[0] as ScannedControl).pid;
  const list = target.frame.locator(`[data-portico-listbox="${token}"]`);
  const has = await list.evaluate(markFilterBox, { token, trigger: await trigger.elementHandle() }).catch(() => false);
  if (!has) return null;
  env.log(`${target.label}: typing '${text}' into its list's filter box`);
  const box = target.frame.locator(`[data-portico-filter="${token}"]`);
  const before = (
    await target.frame
      .locator(`[data-portico-option="${token}"]:visible`)
      .allInnerTexts()
      .catch(() => [] as string[])
  ).join('\n');
  await box.fill(text, { timeout: 3000 });
  const changed = async (): Promise<boolean> => {
    if (!(await listFound(trigger, markOf(target), { token, mark: false }))) return false;
    return (
      (await target.frame.locator(`[data-portico-option="${token}"]:visible`).allInnerTexts()).join('\n') !== before
    );
  };
  // A loaded machine may take a while to filter a long list: the wait ends as soon as the rows change.
  if (!(await waitFor(changed, 3000))) return null;
  // A virtualised list re-renders in steps (its rows replaced by new elements, which carry no mark, or
  // first drawn at its old scroll offset with no rows): the list is found and marked again at each
  // reading, and its rows are read once two readings 150 ms apart agree and show something (at most 2 s).
  const rows = async (): Promise<string> => {
    await listFound(trigger, markOf(target), { token, mark: false }).catch(() => false);
    return target.frame
      .locator(`[data-portico-option="${token}"]:visible`)
      .allInnerTexts()
      .then((texts) => texts.join('\n'))
      .catch(() => '');
  };
  let last = await rows();
  for (const startedAt = performance.now(); performance.now() - startedAt < 2000; ) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const now = await rows();
    if (now === last && now !== '') break;
    last = now;
  }
  return target.frame.locator(`[data-portico-option="${token}"]:visible`);
}

/**
 * The list a cascader opened (docs/autofill.md "Cascaders and tree selects"): a visible `role=listbox`
 * that appeared with the click, holding no options but items (`role=none`/`presentation` children, or
 * `li`s) with text; marked for the filler. Null when there is none.
 */
async function cascadeList(target: Target): Promise<Locator | null> {
  const token = (target.controls[0] as ScannedControl).pid;
  const found = await target.frame.evaluate(markCascadeList, token);
  return found ? target.frame.locator(`[data-portico-cascade="${token}"]`) : null;
}

/** The items of one level of a cascader's list and their names (their text without the lists inside them). */
async function cascadeItems(list: Locator): Promise<{ items: Locator; labels: string[] }> {
  const items = list.locator('xpath=./*[@role="none" or @role="presentation" or self::li]');
  const labels = await items.evaluateAll(cascadeLabels);
  return { items, labels };
}

/**
 * A cascader (a listbox of items with no options, each group opening a list of its own inside it):
 * the value must be a full path from the first level ("Europe > France > Paris"), since only a click
 * shows whether an item is a group, and a click on a leaf chooses it. Each step is matched like an
 * option among that level's items (none or several: asked or failed, nothing chosen), clicked, and
 * must open the next level; the last step's click must leave the trigger showing it.
 */
async function fillCascade(
  env: FillEnv,
  target: Target,
  trigger: Locator,
  first: Locator,
  value: unknown,
): Promise<FillResult> {
  const path = valuePath(value);
  let list = first;
  const hows: PlacementHow[] = [];
  for (let k = 0; k < path.length; k += 1) {
    const { items, labels } = await cascadeItems(list);
    const choices = realChoices(labels.map((label) => ({ label, value: label })).filter((c) => c.label));
    const m = findChoice(path[k], choices);
    if (!('how' in m)) {
      await env.page.keyboard.press('Escape');
      const problem = optionProblem(
        target,
        path[k] as string,
        m.index,
        choices.map((c) => c.label),
      );
      if (k === 0 && path.length === 1)
        throw new FillProblem(
          `${problem.message}: a cascader takes the full path from its first level ("${choices[0]?.label ?? 'Region'} > … > ${asText(value)}")`,
          problem.choices,
          problem.kind,
        );
      throw problem;
    }
    hows.push(m.how);
    const label = (choices[m.index] as ChoiceLike).label;
    const item = items.nth(labels.indexOf(label));
    await click(env, item.locator('xpath=./*[1]'));
    if (k === path.length - 1) break;
    const next = item.locator('[role=listbox]').first();
    if (!(await waitFor(() => next.isVisible().catch(() => false), 1500))) {
      await env.page.keyboard.press('Escape');
      throw new AgentFailure(
        `'${target.label}': '${label}' opened no further list for '${path.slice(k + 1).join(' > ')}'; check what it chose`,
      );
    }
    list = next;
  }
  const leaf = path[path.length - 1] ?? '';
  const shows = async (): Promise<boolean> => {
    const shown = loose(await shownValue(trigger, markOf(target)));
    return !!shown && shown.includes(loose(leaf));
  };
  if (!path.length || !(await waitFor(shows, 1500))) {
    const shown = await shownValue(trigger, markOf(target)).catch(() => '');
    await env.page.keyboard.press('Escape');
    throw new AgentFailure(`'${target.label}' shows '${shown}' after choosing ${path.join(' > ')} in its lists`);
  }
  // The lists must be gone before the next field is touched (a closing panel would take its clicks).
  if (!(await waitFor(async () => !(await first.isVisible().catch(() => false)), 1500))) {
    await env.page.keyboard.press('Escape');
    await waitFor(async () => !(await first.isVisible().catch(() => false)), 1000);
  }
  const order: PlacementHow[] = ['exact', 'normalised', 'synonym', 'answer'];
  return {
    shown: path.join(' > '),
    how: hows.reduce<PlacementHow>((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), 'exact'),
  };
}

/** How many tree items a tree select may have expanded to read its whole tree. */
const TREE_EXPAND_MAX = 200;
/** How long an item pressed to expand may take to show its children (it was waited for after each press before). */
const TREE_EXPAND_MS = 300;

/**
 * A tree select (a trigger with `aria-haspopup=tree` opening a `role=tree`, docs/autofill.md "Cascaders
 * and tree selects"): the tree is opened, every item expanded the APG way (focus, ArrowRight; an item
 * that does not expand is a leaf), the whole tree read (each treeitem's name and the names of the
 * treeitems around it), the node the value names found by `findPathNode` (a path, or a name found once
 * in the whole tree: else asked or failed, nothing chosen), chosen with Enter on it, and the trigger
 * must then show its name.
 */
async function fillTreeSelect(env: FillEnv, target: Target, trigger: Locator, value: unknown): Promise<FillResult> {
  const token = (target.controls[0] as ScannedControl).pid;
  const controls = await trigger.getAttribute('aria-controls');
  const scope = controls ? target.frame.locator(`[id="${controls}"]`) : target.frame.locator('body');
  const tree = scope.locator('[role=tree]:visible').or(target.frame.locator(`[id="${controls}"][role=tree]:visible`));
  const open = (ms: number): Promise<boolean> => waitFor(async () => (await tree.count()) === 1, ms);
  if ((await trigger.getAttribute('aria-expanded')) !== 'true') {
    const clickable = (await pointerReaches(trigger, 600, markOf(target))) === 'self';
    if (clickable) await click(env, trigger);
    else {
      // A visually hidden focusable trigger under the drawn box: ArrowDown, the APG way, else a click
      // where the box is drawn (what a person clicks).
      await trigger.focus();
      await env.page.keyboard.press('ArrowDown');
      if (!(await open(800))) await clickWhereDrawn(env, trigger);
    }
  }
  if (!(await open(1500)))
    throw new AgentFailure(`'${target.label}' did not open its tree of choices (clicked it, then pressed ArrowDown)`);
  const items = tree.locator('[role=treeitem]');
  // Expand every item once: what does not expand is a leaf. Not waited for item by item: once every item
  // has been pressed, the tree is watched TREE_EXPAND_MS for items that expand late (each had at least
  // that long since its press); their new children are pressed in turn, and watched for again.
  for (let pressed = 0; pressed < TREE_EXPAND_MAX; pressed += 1) {
    // The item found is marked tried by the same call; press focuses it first.
    let next = await items.evaluateAll(nextTreeItem, token);
    const another = async (): Promise<boolean> => {
      next = await items.evaluateAll(nextTreeItem, token);
      return next >= 0;
    };
    if (next < 0 && !(await waitFor(another, TREE_EXPAND_MS))) break;
    await items.nth(next).press('ArrowRight');
  }
  const nodes: PathNode[] = await items.evaluateAll(treeNodes);
  const found = findPathNode(value, nodes);
  const leaves = nodes.map((n) => [...n.ancestors, n.label].join(' > '));
  if (found.index < 0) {
    await env.page.keyboard.press('Escape');
    throw optionProblem(target, asText(value), found.index, leaves);
  }
  const node = nodes[found.index] as PathNode;
  const item = items.nth(found.index);
  const took = async (): Promise<boolean> =>
    loose(await shownValue(trigger, markOf(target))).includes(loose(node.label));
  // Enter on the focused item (APG: activates it), else a click on its own row (not its children).
  await item.focus();
  await item.press('Enter');
  if (!(await waitFor(took, 600))) {
    const row = item.locator('xpath=./*[not(@role="group")]').first();
    if (
      await tree
        .first()
        .isVisible()
        .catch(() => false)
    )
      await click(env, row);
    if (!(await waitFor(took, 1000))) {
      const shown = await shownValue(trigger, markOf(target)).catch(() => '');
      await env.page.keyboard.press('Escape');
      throw new AgentFailure(
        `'${target.label}' does not show '${node.label}' after choosing it in its tree (it shows '${shown}')`,
      );
    }
  }
  // The tree must be gone before the next field is touched (a closing panel would take its clicks).
  const gone = async (): Promise<boolean> =>
    !(await tree
      .first()
      .isVisible()
      .catch(() => false));
  if (!(await waitFor(gone, 1000))) {
    await env.page.keyboard.press('Escape');
    await waitFor(gone, 1000);
  }
  const path = [...node.ancestors, node.label];
  const exact =
    typeof value === 'string' && (value.trim() === node.label || valuePath(value).join('>') === path.join('>'));
  return { shown: path.join(' > '), how: exact ? 'exact' : 'normalised' };
}

/** Chooses the option meaning `value` in a select-only combobox and checks the widget took it. */
export async function fillListbox(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  const trigger = locate(target);
  const control = target.controls[0] as ScannedControl;
  const hidden = control.hiddenPid ? target.frame.locator(`[data-portico-id="${control.hiddenPid}"]`) : null;
  const hiddenValue = async (): Promise<string> => (hidden ? hidden.inputValue().catch(() => '') : '');
  // The reads of the page as it is before anything is opened, sent together in one round trip (none changes
  // what the others read): the popup kind, the hidden value, the lists already open marked as not this
  // one's — another control's list still closing (a popover's exit animation) is never read as this one's
  // (findListbox.ts leaves lists marked for another control), so it is not waited out here — and openList's
  // (listBefore: the open lists marked, the hit test, aria-expanded).
  const opening = listBefore(target, trigger);
  const [popup, before] = await Promise.all([
    trigger.getAttribute('aria-haspopup'),
    hiddenValue(),
    target.frame.evaluate(markListsBefore, control.pid),
    opening,
  ]);
  if (popup === 'tree') return fillTreeSelect(env, target, trigger, value);
  // A cascader's list (items, no options) ends the waits for the list as an option list does.
  const opened = await openList(env, target, trigger, true, opening);
  if (opened === 'cascade')
    return fillCascade(env, target, trigger, target.frame.locator(`[data-portico-cascade="${control.pid}"]`), value);
  let options = opened;
  if (!options) {
    const cascade = await cascadeList(target);
    if (cascade) return fillCascade(env, target, trigger, cascade, value);
    throw new AgentFailure(`'${target.label}' did not open its list of options (clicked it, then pressed ArrowDown)`);
  }
  let all = (await options.evaluateAll(readOptions)).map((o, index) => ({ ...o, index }));
  let enabled = realChoices(all.filter((o) => !o.disabled && o.label));
  let match = findChoice(value, enabled);
  if (match.index === -1 && typeof value === 'string' && value.trim()) {
    // A long list draws only the rows in view (virtualised) and offers a filter box in its popup: the
    // value is typed there, as a person does, and the filtered rows are read again. Only a match as
    // written (exact or normalised) counts there: a synonym may sit among the rows the filter hid.
    const filtered = await filterList(env, target, trigger, value.trim());
    if (filtered) {
      options = filtered;
      all = (await options.evaluateAll(readOptions)).map((o, index) => ({ ...o, index }));
      enabled = realChoices(all.filter((o) => !o.disabled && o.label));
      match = findChoice(value, enabled);
      if ('how' in match && match.how === 'synonym') match = { index: -1 };
    }
  }
  if (!('how' in match)) {
    await env.page.keyboard.press('Escape');
    throw optionProblem(
      target,
      asText(value),
      match.index,
      enabled.map((o) => o.label),
    );
  }
  const choice = enabled[match.index] as (typeof enabled)[number];
  const took = async (): Promise<boolean> => {
    const now = await hiddenValue();
    if (now && (now !== before || now === choice.value || sameValue(now, choice.label, false))) return true;
    return loose(await shownValue(trigger, markOf(target))).includes(loose(choice.label));
  };
  await click(env, options.nth(choice.index));
  // A list left open (multi-select, or a slow close) would swallow the next click on the page: whether it is
  // still open is read with the first look at what the widget shows (both reads of the page after the click),
  // and again after a widget that took the choice only later.
  const stillOpen = (): Promise<boolean> =>
    (options as Locator | null)
      ?.first()
      .isVisible()
      .catch(() => false) ?? Promise.resolve(false);
  const [shows, openAtOnce] = await Promise.all([took().catch(() => false), stillOpen()]);
  let open = openAtOnce;
  if (!shows) {
    if (!(await waitFor(took, 800))) {
      // Some lists select on Enter over the active option rather than on click.
      options = await openListbox(env, target, trigger);
      const option = options?.nth(choice.index);
      if (option) {
        await option.hover().catch(() => undefined);
        await option.focus().catch(() => undefined);
        await env.page.keyboard.press('Enter');
      }
      if (!(await waitFor(took, 800)))
        throw new AgentFailure(`'${target.label}' does not show '${choice.label}' after choosing it from its list`);
    }
    open = await stillOpen();
  }
  if (open) await env.page.keyboard.press('Escape');
  return { shown: choice.label, how: match.how };
}

/** What a multi-select placed besides what it shows: the options it listed and the values of those chosen (for the submission check). */
type MultiFillResult = FillResult & { options: ChoiceLike[]; sent: string[] };

/**
 * Several choices in one list (docs/autofill.md, Multi-select lists): a listbox that says it takes
 * several (`aria-multiselectable`), a menu of `menuitemcheckbox` items, or a component marked
 * `multiple`. The list is opened, every value must name exactly one option (else asked or failed,
 * nothing chosen), each option whose state differs from the wanted one is clicked (wanted ones
 * selected, the others released), and the options' `aria-selected`/`aria-checked` must then be
 * exactly the wanted set. A list that takes one choice gets a one-value list as a single choice; more
 * values are a problem, never a partial fill.
 */
export async function fillMultiListbox(env: FillEnv, target: Target, values: unknown[]): Promise<MultiFillResult> {
  const trigger = locate(target);
  const token = (target.controls[0] as ScannedControl).pid;
  let options = await openListbox(env, target, trigger);
  if (!options)
    throw new AgentFailure(`'${target.label}' did not open its list of options (clicked it, then pressed ArrowDown)`);
  const list = target.frame.locator(`[data-portico-listbox="${token}"]`);
  // Several choices: said by the list (aria-multiselectable, a menu of checkable items), or by its options
  // carrying a checked state (aria-checked on role=option: a list of checkboxes that never says multiselectable).
  // The three reads of the open list are sent together (none changes what the others read; the checkable
  // read counts only when the list does not say it takes many).
  const [takesMany, checkable, read] = await Promise.all([
    (target.controls[0] as ScannedControl).multiple || list.evaluate(listTakesMany).catch(() => false),
    options.evaluateAll(optionsCheckable).catch(() => false),
    options.evaluateAll(readOptions),
  ]);
  const multi = takesMany || checkable;
  const all = read.map((o, index) => ({ ...o, index }));
  const enabled = realChoices(all.filter((o) => !o.disabled && o.label));
  if (!multi) {
    await env.page.keyboard.press('Escape');
    if (values.length !== 1)
      throw new FillProblem(
        `'${target.label}' takes one choice; form_data gives ${values.length} (${values.map(asText).join(', ')})`,
        enabled.map((o) => o.label),
      );
    const single = await fillListbox(env, target, values[0]);
    return { ...single, options: enabled.map(({ label, value }) => ({ label, value })), sent: [] };
  }
  const matched = matchAll(values, enabled);
  if (!('indices' in matched)) {
    await env.page.keyboard.press('Escape');
    throw optionProblem(
      target,
      asText(matched.value),
      matched.index,
      enabled.map((o) => o.label),
    );
  }
  const hows = values.map((v) => {
    const m = findChoice(v, enabled);
    return 'how' in m ? m.how : 'exact';
  });
  const wanted = new Set(matched.indices.map((i) => (enabled[i] as (typeof enabled)[number]).index));
  const states = async (): Promise<boolean[]> => (options as Locator).evaluateAll(optionStates);
  const right = async (): Promise<boolean> =>
    (await states()).every((on, i) => !all[i] || all[i]?.disabled || on === wanted.has(i));
  // The states read once, and again only after a click (the one thing that changes them here).
  let known: boolean[] | null = null;
  for (const option of all) {
    if (option.disabled) continue;
    known ??= await states();
    const now = known[option.index] === true;
    if (now === wanted.has(option.index)) continue;
    known = null;
    // A list that closes on each choice is opened again (its options keep their places). Whether the option
    // is there and what it says are read together; it is read again in a list opened again.
    const place = (): Promise<[boolean, string | undefined]> => {
      const at = (options as Locator).nth(option.index);
      return Promise.all([at.isVisible().catch(() => false), at.evaluateAll(readOptions).then((o) => o[0]?.label)]);
    };
    let [there, label] = await place();
    if (!there) {
      options = await openListbox(env, target, trigger);
      if (!options) throw new AgentFailure(`'${target.label}' did not open its list again to choose '${option.label}'`);
      [, label] = await place();
    }
    if (label !== option.label) {
      await env.page.keyboard.press('Escape');
      throw new AgentFailure(
        `'${target.label}': the list changed while choosing (that place now shows '${label ?? ''}', not '${option.label}'); stopped`,
      );
    }
    await click(env, options.nth(option.index));
  }
  if (!(await waitFor(right, 1000))) {
    const on = await states().catch(() => [] as boolean[]);
    const chosen = all.filter((o) => on[o.index]).map((o) => o.label);
    await env.page.keyboard.press('Escape');
    throw new AgentFailure(
      `'${target.label}' has ${chosen.length ? chosen.map((c) => `'${c}'`).join(', ') : 'nothing'} selected after choosing ${[...wanted].map((i) => `'${all[i]?.label}'`).join(', ')}`,
    );
  }
  const picked = all.filter((o) => wanted.has(o.index));
  if (
    await options
      .first()
      .isVisible()
      .catch(() => false)
  )
    await env.page.keyboard.press('Escape');
  const order: PlacementHow[] = ['exact', 'normalised', 'synonym', 'answer'];
  return {
    shown: picked.map((o) => o.label).join(', '),
    how: hows.reduce<PlacementHow>((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), 'exact'),
    options: enabled.map(({ label, value }) => ({ label, value })),
    // Options with values of their own are what the form sends; labels alone prove nothing about the request.
    sent: picked.every((o) => o.value) ? picked.map((o) => o.value) : [],
  };
}

/** Types into a contenteditable element; editors that ignore inserted text get real key presses. */
export async function fillEditable(env: FillEnv, target: Target, text: string): Promise<string> {
  const loc = locate(target);
  const shown = async (): Promise<string> => (await loc.innerText()).replace(/\u200b/g, '').trim();
  if (env.human) await env.human.fill(loc, text);
  else await loc.fill(text, { timeout: env.budget.ms() });
  let now = await shown();
  if (!sameValue(now, text, false)) {
    env.log(`${target.label}: text did not stick after fill, typing key by key`);
    await typeKeys(env, loc, text);
    now = await shown();
    if (!sameValue(now, text, false))
      throw new AgentFailure(`'${target.label}' shows ${JSON.stringify(now.slice(0, 80))} after typing into it`);
  }
  await loc.blur().catch(() => undefined);
  return now;
}
