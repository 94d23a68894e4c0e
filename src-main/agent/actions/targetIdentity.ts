import type { Locator, Page } from 'playwright-core';
import { uniqueSelector } from '../injected/index.ts';
import { perceivableAcross, searchFrames } from './searchFrames.ts';

/** How a resolved target is found again: its role and accessible name (or its text, for an element with no role), plus a CSS fallback. */
export interface TargetIdentity {
  role: string;
  name: string;
  /** `role`: found again by getByRole(role, name); `text`: an element with no role, found by its exact text. */
  by: 'role' | 'text';
  selector: string;
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
  if (t.startsWith('\'') && t.endsWith('\'') && t.length >= 2) return t.slice(1, -1).replaceAll('\'\'', '\'');
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
  if (line.startsWith('\'') || line.startsWith('"')) {
    const quote = line[0] ?? '';
    let i = 1;
    if (quote === '"') i = quotedEnd(line, 0);
    else {
      while (i < line.length) {
        if (line[i] === '\'' && line[i + 1] === '\'') i += 2;
        else if (line[i] === '\'') break;
        else i += 1;
      }
      i += 1;
    }
    key = yamlScalar(line.slice(0, i));
    rest = line.slice(i);
  } else {
    let i = 0;
    while (i < line.length && !(line[i] === ':' && (line[i + 1] === ' ' || i + 1 === line.length))) i = line[i] === '"' ? quotedEnd(line, i) : i + 1;
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
  const [snapshot, selector] = await Promise.all([locator.ariaSnapshot({ timeout: 5_000 }), locator.evaluate(uniqueSelector)]);
  const { role, name, text } = parseAriaLine(snapshot);
  if (name && role !== 'text') return { role, name, by: 'role', selector };
  return { role: role || 'text', name: text, by: 'text', selector };
}

/** Whether a snapshot line shows the same role and name as the stored identity. */
function sameIdentity(snapshot: string, identity: TargetIdentity): boolean {
  const seen = parseAriaLine(snapshot);
  return identity.by === 'role' ? seen.role === identity.role && seen.name === identity.name : (seen.role || 'text') === identity.role && seen.text === identity.name;
}

/**
 * The stored target on the current page, only if exactly one element still has its role and name:
 * first by role and name, else by the fallback selector when that element still reads the same.
 * Undefined means the entry does not apply to this page. `within`: only inside that element (a row).
 */
export async function findAgain(page: Page, identity: TargetIdentity, within?: Locator): Promise<Locator | undefined> {
  const frames: Array<Pick<Locator, 'getByRole' | 'getByText' | 'locator'>> = within ? [within] : await searchFrames(page);
  // Only what a person can perceive now (not aria-hidden, inert or behind an open modal dialog).
  const primary = await perceivableAcross(frames, (frame) => (identity.by === 'role'
    ? frame.getByRole(identity.role as AriaRole, { name: identity.name, exact: true })
    : frame.getByText(identity.name, { exact: true })), identity.by === 'text');
  if (primary.only) {
    if (identity.by === 'role') return primary.only;
    if (sameIdentity(await primary.only.ariaSnapshot({ timeout: 2_000 }), identity)) return primary.only;
  }
  if (!identity.selector) return undefined;
  const fallback = await perceivableAcross(frames, (frame) => frame.locator(identity.selector), identity.by === 'text');
  if (!fallback.only) return undefined;
  const snapshot = await fallback.only.ariaSnapshot({ timeout: 2_000 }).catch(() => '');
  return sameIdentity(snapshot, identity) ? fallback.only : undefined;
}
