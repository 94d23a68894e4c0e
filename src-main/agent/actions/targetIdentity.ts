import type { Frame, Locator, Page } from 'playwright-core';
import { scriptableFrames } from '../../browser/frameAccess.ts';
import { frameLocation, probe, uniqueSelector, type Probe, type TargetFacts } from '../injected/index.ts';
import { perceivableAcross, searchFrames } from './searchFrames.ts';

/** How a resolved target is found again: its role and accessible name (or its text, for an element with no role), plus a CSS fallback. */
export interface TargetIdentity {
  role: string;
  name: string;
  /** `role`: found again by getByRole(role, name); `text`: an element with no role, found by its exact text. */
  by: 'role' | 'text';
  selector: string;
  /**
   * The document it was found in: '' the page's own, else the frame's origin + path. A replay looks only
   * there; absent (steps stored before it was kept) means the page and all its shown frames.
   */
  frame?: string;
}

/** Origin + path of a frame's address (what a stored target's frame is known by). */
export function frameKey(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? parsed.href : `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

type AriaRole = Parameters<Page['getByRole']>[0];

/** Reads a YAML scalar Playwright's aria snapshot wrote: plain, 'single' or "double" quoted. */
function yamlScalar(text: string): string {
  const t = text.trim();
  if (t.startsWith('"')) {
    try {
      return JSON.parse(t) as string;
    } catch {
      return t.slice(1, -1);
    }
  }
  if (t.startsWith("'") && t.endsWith("'") && t.length >= 2) return t.slice(1, -1).replaceAll("''", "'");
  return t;
}

/** The end (exclusive) of the JSON-style string starting at `start` (a `"`), honouring backslash escapes. */
function quotedEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === '\\') i += 2;
    else if (text[i] === '"') return i + 1;
    else i += 1;
  }
  return text.length;
}

/**
 * Role, accessible name and inline text of the first node of an aria snapshot
 * (`- button "Continue"`, `- 'link "a: b"'`, `- text: plain`), as Playwright computes them.
 */
export function parseAriaLine(snapshot: string): { role: string; name: string; text: string } {
  const line = (snapshot.split('\n')[0] ?? '').replace(/^\s*- /, '');
  let key: string;
  let rest: string;
  if (line.startsWith("'") || line.startsWith('"')) {
    const quote = line[0] ?? '';
    let i = 1;
    if (quote === '"') i = quotedEnd(line, 0);
    else {
      while (i < line.length) {
        if (line[i] === "'" && line[i + 1] === "'") i += 2;
        else if (line[i] === "'") break;
        else i += 1;
      }
      i += 1;
    }
    key = yamlScalar(line.slice(0, i));
    rest = line.slice(i);
  } else {
    let i = 0;
    while (i < line.length && !(line[i] === ':' && (line[i + 1] === ' ' || i + 1 === line.length)))
      i = line[i] === '"' ? quotedEnd(line, i) : i + 1;
    key = line.slice(0, i);
    rest = line.slice(i);
  }
  const space = key.indexOf(' ');
  const role = space < 0 ? key : key.slice(0, space);
  const after = space < 0 ? '' : key.slice(space + 1).trimStart();
  const name = after.startsWith('"') ? yamlScalar(after.slice(0, quotedEnd(after, 0))) : '';
  const text = rest.startsWith(':') ? yamlScalar(rest.slice(1)) : '';
  return { role, name, text };
}

/** Role and name (as getByRole sees them) of one resolved element, and its fallback selector. */
export async function identify(locator: Locator): Promise<TargetIdentity> {
  const [snapshot, selector, href] = await Promise.all([
    locator.ariaSnapshot({ timeout: 5_000 }),
    locator.evaluate(uniqueSelector),
    locator.evaluate(frameLocation).then((where) => (where.top ? '' : where.href)),
  ]);
  const { role, name, text } = parseAriaLine(snapshot);
  const frame = href === '' ? '' : frameKey(href);
  if (name && role !== 'text') return { role, name, by: 'role', selector, frame };
  return { role: role || 'text', name: text, by: 'text', selector, frame };
}

/** Whether a snapshot line shows the same role and name as the stored identity. */
function sameIdentity(snapshot: string, identity: TargetIdentity): boolean {
  const seen = parseAriaLine(snapshot);
  return identity.by === 'role'
    ? seen.role === identity.role && seen.name === identity.name
    : (seen.role || 'text') === identity.role && seen.text === identity.name;
}

type Scope = Pick<Frame, 'getByRole' | 'getByText' | 'locator'>;

/**
 * Where a stored target is looked for: inside `within` (a row); else its own document when the step knows
 * it (the page's, or the shown frames with that address; none → the step does not apply); else the page
 * and all its shown frames.
 */
async function scopesFor(page: Page, identity: TargetIdentity, within?: Locator): Promise<Scope[] | undefined> {
  if (within) return [within];
  if (identity.frame === undefined) return searchFrames(page);
  const main = page.mainFrame();
  if (identity.frame === '') return [main];
  const same = scriptableFrames(page).filter((f) => f !== main && frameKey(f.url()) === identity.frame);
  const shown = await Promise.all(
    same.map(async (frame) => {
      const owner = await frame.frameElement().catch(() => null);
      return owner !== null && (await owner.isVisible().catch(() => false));
    }),
  );
  const frames = same.filter((_, i) => shown[i]);
  return frames.length > 0 ? frames : undefined;
}

/** What findAgain found: the element's locator and what its operation needs to know of it (when read in the same call). */
export interface FoundAgain {
  locator: Locator;
  facts?: TargetFacts;
  /** The time origin of the document it was found in (tells whether that document is still the page's). */
  doc?: number;
}

/**
 * The stored target on the current page, only if exactly one element still has its role and name:
 * first by role and name, else by the fallback selector when that element still reads the same.
 * Undefined means the entry does not apply to this page. `within`: only inside that element (a row).
 * The first way costs one call into each document searched, which also reads the operation's facts;
 * the element is then driven through its stored selector when that selector is it alone.
 */
export async function findAgain(
  page: Page,
  identity: TargetIdentity,
  within?: Locator,
  op = '',
): Promise<FoundAgain | undefined> {
  const frames = await scopesFor(page, identity, within);
  if (!frames) return undefined;
  // Only what a person can perceive now (not aria-hidden, inert or behind an open modal dialog).
  const textOnly = identity.by === 'text';
  const args = { textOnly, selector: identity.selector, role: identity.role, op };
  const probes = await Promise.all(
    frames.map(async (frame) => {
      const candidates =
        identity.by === 'role'
          ? frame.getByRole(identity.role as AriaRole, { name: identity.name, exact: true })
          : frame.getByText(identity.name, { exact: true });
      const seen: Probe = await candidates.evaluateAll(probe, args).catch(() => ({ seen: [] }));
      return { frame, candidates, probe: seen };
    }),
  );
  const hits = probes.flatMap((p) => p.probe.seen.map((s, index) => ({ p, index, s })).filter((h) => h.s !== 0));
  const open = hits.filter((h) => h.s === 1);
  const chosen = hits.length === 1 ? hits[0] : hits.length > 1 && open.length === 1 ? open[0] : undefined;
  // The frame's own pick is the page-wide one whenever there is a page-wide one (one hit, or one uncovered hit).
  const picked = chosen && chosen.p.probe.pick === chosen.index ? chosen.p : undefined;
  if (picked && chosen) {
    const { frame, candidates, probe: found } = picked;
    const locator =
      found.bySelector && !within ? frame.locator(`css:light=${identity.selector}`) : candidates.nth(chosen.index);
    const result: FoundAgain = {
      locator,
      ...(found.facts && { facts: found.facts }),
      ...(found.doc !== undefined && { doc: found.doc }),
    };
    if (identity.by === 'role' || found.roleSame) return result;
    if (sameIdentity(await locator.ariaSnapshot({ timeout: 2_000 }), identity)) return result;
  }
  if (!identity.selector) return undefined;
  const fallback = await perceivableAcross(frames, (frame) => frame.locator(identity.selector), textOnly);
  if (!fallback.only) return undefined;
  const snapshot = await fallback.only.ariaSnapshot({ timeout: 2_000 }).catch(() => '');
  return sameIdentity(snapshot, identity) ? { locator: fallback.only } : undefined;
}
