import type { Frame, Locator, Page } from 'playwright-core';
import { answerWithin, scriptableFrames } from '../../browser/frameAccess.ts';
import { type ElementDescriptor, type ModelFrameScan, modelScan, type PageElement } from '../injected/index.ts';

export type { ElementDescriptor, PageElement };

export interface PageState {
  url: string;
  title: string;
  elements: PageElement[];
  text: string;
  /** The frame each element lives in, by index: actions go to the right iframe. */
  frames: Frame[];
}

/** An iframe worth listing: attached and shown (a hidden iframe's controls cannot be used). */
async function isShownFrame(frame: Frame): Promise<boolean> {
  if (frame.isDetached()) return false;
  const owner = await frame.frameElement().catch(() => null);
  return owner !== null && (await owner.isVisible().catch(() => false));
}

const REF_ATTR = 'data-portico-ref';

/**
 * Indexes every visible, enabled interactive element of the page, its shown iframes and open shadow
 * roots (tagging each for this turn), and reads the visible text.
 */
export async function readPageState(page: Page): Promise<PageState> {
  const state: PageState = { url: page.url(), title: '', elements: [], text: '', frames: [] };
  const texts: string[] = [];
  for (const frame of scriptableFrames(page)) {
    if (frame !== page.mainFrame() && !(await isShownFrame(frame))) continue;
    // A frame that navigates or detaches mid-scan simply offers nothing this turn.
    const scan = await answerWithin(frame, scanFrame(frame, state.elements.length)).catch(() => null);
    if (!scan) continue;
    if (frame === page.mainFrame()) Object.assign(state, { url: scan.url, title: scan.title });
    state.elements.push(...scan.elements);
    for (const _ of scan.elements) state.frames.push(frame);
    if (scan.text) texts.push(scan.text);
  }
  state.text = texts.join(' | ').slice(0, 2000);
  return state;
}

/** The model agent's scan of one frame (injected/modelScan.ts), numbering from `start`. */
function scanFrame(frame: Frame, start: number): Promise<ModelFrameScan> {
  return frame.evaluate(modelScan, { refAttr: REF_ATTR, start });
}

/** The element the model named by index this turn, in its own frame (CSS locators pierce open shadow roots). */
export function locateByIndex(state: PageState, index: number): Locator {
  const frame = state.frames[index];
  if (!frame) throw new Error(`no element [${index}] in this turn's listing`);
  return frame.locator(`[${REF_ATTR}="${index}"]`);
}

/** The compact listing the model reads: one line per element. */
export function describeElements(elements: PageElement[]): string {
  return elements
    .map((e) => {
      const parts = [`[${e.index}] ${e.role}`];
      if (e.type && e.role === 'textbox' && e.type !== 'text') parts.push(`type=${e.type}`);
      if (e.name) parts.push(JSON.stringify(e.name));
      if (e.value) parts.push(`value=${JSON.stringify(e.value)}`);
      if (e.checked !== null) parts.push(e.checked ? 'checked' : 'unchecked');
      if (e.options.length > 0) parts.push(`options=${JSON.stringify(e.options)}`);
      return parts.join(' ');
    })
    .join('\n');
}

/** A stable fingerprint of what the page offers, to notice turns that change nothing. */
export function fingerprint(state: PageState): string {
  return `${state.url}|${state.elements.map((e) => `${e.role}:${e.name}:${e.value}:${String(e.checked)}`).join(',')}`;
}

/** Finds the element a descriptor names on the current page: exactly one match or none. */
export async function resolveDescriptor(page: Page, d: ElementDescriptor): Promise<Locator | undefined> {
  const candidates: ((f: Frame) => Locator)[] = [];
  if (d.testId) candidates.push((f) => f.locator(`[data-testid="${cssEscape(d.testId)}"]`));
  if (d.id && !/\d{3,}/.test(d.id)) candidates.push((f) => f.locator(`#${cssEscape(d.id)}`));
  if (
    d.name &&
    ['button', 'link', 'checkbox', 'radio', 'combobox', 'textbox', 'tab', 'switch', 'option', 'menuitem'].includes(
      d.role,
    )
  ) {
    candidates.push((f) => f.getByRole(d.role as 'button', { name: d.name, exact: true }));
  }
  if (d.name && ['textbox', 'combobox', 'checkbox', 'radio'].includes(d.role))
    candidates.push((f) => f.getByLabel(d.name, { exact: true }));
  if (d.nameAttr) candidates.push((f) => f.locator(`${d.tag}[name="${cssEscape(d.nameAttr)}"]`));
  const frames = scriptableFrames(page);
  // Unique across every frame: the same descriptor matching in two iframes is ambiguous.
  for (const candidate of candidates) {
    const hits: Locator[] = [];
    for (const frame of frames) {
      const locator = candidate(frame);
      const count = await locator.count().catch(() => 0);
      for (let i = 0; i < count; i += 1) hits.push(locator);
    }
    if (hits.length === 1) return hits[0];
  }
  return undefined;
}

function cssEscape(text: string): string {
  return text.replace(/["\\#.:[\]()]/g, (c) => `\\${c}`);
}
