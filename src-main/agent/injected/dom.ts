// DOM helpers shared by every script that runs inside the page. Compiled into each script at build
// time (scripts/build-injected.mjs), so this module may use the DOM only: no Node, no npm imports,
// no module state that must survive between calls.

/** Collapses runs of whitespace and trims; null and undefined become ''. */
export function clean(s: string | null | undefined): string {
  return (s || '').replace(/\s+/g, ' ').trim();
}

// Node types as literals: the text walk visits every node of a page, a global lookup each time costs.
const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const FRAGMENT_NODE = 11;

const SKIP_TEXT = new Set(['SCRIPT', 'STYLE', 'SELECT', 'OPTION', 'TEXTAREA', 'TEMPLATE', 'NOSCRIPT']);

/**
 * The children of `n` in the flat tree (what is rendered): a shadow host's shadow root instead of its
 * light children, a slot's assigned nodes (or its fallback content when nothing is assigned).
 */
export function flatChildren(n: Node): Node[] {
  if (n.nodeType === ELEMENT_NODE) {
    const e = n as Element;
    if (e.shadowRoot) return Array.from(e.shadowRoot.childNodes);
    if (e.tagName === 'SLOT') {
      const assigned = (e as HTMLSlotElement).assignedNodes();
      if (assigned.length) return assigned;
    }
  }
  return Array.from(n.childNodes);
}

/**
 * The text a person reads in `node`, in the flat tree: open shadow roots and the light content
 * slotted into them included; scripts, styles, option lists, input values and `display: none`
 * subtrees left out.
 */
export function textOf(node: Node): string {
  return flatText(node, true);
}

/**
 * The text under `node` in the flat tree, scripts, styles, option lists and input values left out;
 * `display: none` subtrees too when `drawnOnly`. Without it, what the accessible name computation reads
 * in an element an IDREF names that is itself hidden.
 */
function flatText(node: Node, drawnOnly: boolean): string {
  let out = '';
  const walk = (n: Node): void => {
    if (n.nodeType === TEXT_NODE) {
      out += `${n.nodeValue} `;
      return;
    }
    if (n.nodeType !== ELEMENT_NODE && n.nodeType !== FRAGMENT_NODE) return;
    if (n.nodeType === ELEMENT_NODE) {
      const e = n as Element;
      if (SKIP_TEXT.has(e.tagName) || e.tagName === 'INPUT') return;
      if (drawnOnly && getComputedStyle(e).display === 'none') return;
    }
    for (const c of flatChildren(n)) walk(c);
  };
  walk(node);
  return clean(out);
}

/** The elements under `root` matching `selector`, in the flat tree (through shadow roots and slots), in order. */
export function flatQueryAll(root: Node, selector: string): Element[] {
  const out: Element[] = [];
  const walk = (n: Node): void => {
    for (const c of flatChildren(n)) {
      if (c.nodeType !== ELEMENT_NODE) continue;
      if ((c as Element).matches(selector)) out.push(c as Element);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Connected, not `visibility: hidden` / `display: none`, and with a non-empty box. */
export function visible(el: Element): boolean {
  if (!el.isConnected) return false;
  const cs = getComputedStyle(el);
  if (cs.visibility === 'hidden' || cs.display === 'none') return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

/**
 * Drawn for screen readers only: the element or one of its three closest ancestors is a box of 1px
 * or less (the "visually hidden" clip a live announcer sits in), so no person reads it on screen.
 */
export function visuallyHidden(el: Element): boolean {
  let n: Element | null = el;
  for (let depth = 0; n && depth < 4; depth++, n = n.parentElement) {
    const r = n.getBoundingClientRect();
    if (r.width <= 1 && r.height <= 1) return true;
  }
  return false;
}

/** The element with `id` in `el`'s own tree (its shadow root), else in the document. */
export function elementById(el: Node, id: string): Element | null {
  const root = el.getRootNode() as Partial<DocumentOrShadowRoot> & Partial<NonElementParentNode>;
  return (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
}

/** Drawn nowhere: no box (`display: none` on it or an ancestor), though not a `display: contents` wrapper. */
function undrawn(el: Element): boolean {
  return el.getClientRects().length === 0 && getComputedStyle(el).display !== 'contents';
}

/**
 * The text of the elements an IDREF list names (aria-labelledby, aria-describedby). As the accessible
 * name computation does, an element named there that is itself hidden (`display: none`, `hidden`, or
 * inside such) gives all its text; a shown one its shown text (its hidden parts left out).
 */
export function byIds(el: Element, ids: string | null | undefined): string {
  return clean(
    (ids || '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => {
        const t = elementById(el, id);
        if (!t) return '';
        return flatText(t, !undrawn(t));
      })
      .join(' '),
  );
}

/**
 * The parent of `n` in the flat tree: the slot it is rendered in when a shadow root slots it (a
 * radio inside a radio group component sits in the group's fieldset), else its parent, stepping
 * from a shadow root to its host.
 */
export function parentAcross(n: Node): Node | null {
  const slot = (n as Element | Text).assignedSlot;
  if (slot) return slot;
  const p = n.parentNode;
  return p && p.nodeType === FRAGMENT_NODE ? ((p as ShadowRoot).host ?? null) : p;
}

/** `Element.closest` over the flat tree: climbs through the slots light content is rendered in and out of shadow roots. */
export function closestAcross(el: Element, selector: string): Element | null {
  let n: Node | null = el;
  while (n) {
    if (n.nodeType === ELEMENT_NODE && (n as Element).matches(selector)) return n as Element;
    n = parentAcross(n);
  }
  return null;
}

/** The shadow host `el` is rendered inside of, or null in the document's own tree. */
export function hostOf(el: Element): Element | null {
  const root = el.getRootNode();
  return root.nodeType === FRAGMENT_NODE ? ((root as ShadowRoot).host ?? null) : null;
}

/** A form-associated custom element (it takes part in its form through ElementInternals). */
export function formAssociated(el: Element): boolean {
  if (!el.tagName.includes('-')) return false;
  const def = customElements.get(el.tagName.toLowerCase()) as { formAssociated?: boolean } | undefined;
  return def?.formAssociated === true;
}

/**
 * The label a component host gives the control rendered in its shadow root: the host's own
 * `<label>`s (a form-associated element is labelable), its `label` attribute, its aria-label.
 */
export function hostLabelOf(host: Element): string {
  const property = (host as { label?: unknown }).label;
  return (
    labelTextsOf(host, true).find(Boolean) ||
    clean(host.getAttribute('label')) ||
    (typeof property === 'string' ? clean(property) : '') ||
    clean(host.getAttribute('aria-label'))
  );
}

/** Every element of the document and of the open shadow roots inside it, in tree order. */
export function allElements(): Element[] {
  const all: Element[] = [];
  const walkRoot = (root: Document | ShadowRoot): void => {
    for (const el of root.querySelectorAll('*')) {
      all.push(el);
      if (el.shadowRoot) walkRoot(el.shadowRoot);
    }
  };
  walkRoot(document);
  return all;
}

/** Native controls only. */
export const NATIVE_FIELDS = 'input:not([type=hidden]),select,textarea';
/** Everything the scan treats as a field: native controls (not value mirrors) and ARIA widgets. */
export const FIELDS =
  'input:not([type=hidden]):not([aria-hidden=true]),select,textarea,[role=radio],[role=checkbox],[role=switch],[role=combobox],[aria-haspopup=listbox],[aria-haspopup=tree],[contenteditable]:not([contenteditable=false])';

export interface OwnGroupOptions {
  /** What counts as another field. */
  fields: string;
  /** How many ancestors to climb at most. */
  maxDepth: number;
  /** A field that is part of this one (default: one containing it or contained in it). */
  sameField?: (other: Element) => boolean;
  /** An ancestor the walk must not take, even though it holds no other field. */
  stopAt?: (ancestor: Element) => boolean;
  /** Climb out of shadow roots (default) or stay in the element's own tree. */
  acrossShadow?: boolean;
}

/**
 * The field's own group, innermost first: the ancestors of `el` (up to `maxDepth`, never the form
 * or the body) that hold no other field, so a neighbour's message, label or value is never read as
 * this field's. Lazy: the walk stops as soon as the caller does.
 */
export function* ownGroupAncestors(el: Element, options: OwnGroupOptions): Generator<Element, void, undefined> {
  const same = options.sameField ?? ((other: Element): boolean => el.contains(other) || other.contains(el));
  const up = options.acrossShadow === false ? (n: Node): Node | null => n.parentElement : parentAcross;
  let n = up(el);
  for (let depth = 0; depth < options.maxDepth && n && n.nodeType === ELEMENT_NODE; depth++) {
    const ancestor = n as Element;
    if (ancestor.tagName === 'FORM' || ancestor.tagName === 'BODY') return;
    if (Array.from(ancestor.querySelectorAll(options.fields)).some((other) => other !== el && !same(other))) return;
    if (options.stopAt?.(ancestor)) return;
    yield ancestor;
    n = up(ancestor);
  }
}

/** The largest of the field's own group ancestors (see ownGroupAncestors), or null when it has none. */
export function ownGroup(el: Element, options: OwnGroupOptions): Element | null {
  let group: Element | null = null;
  for (const ancestor of ownGroupAncestors(el, options)) group = ancestor;
  return group;
}

/**
 * The texts of the labels of `el`, unfiltered (an empty label counts): `el.labels` when asked
 * (native controls), else `<label for>` in its tree, else a label wrapping it.
 */
export function labelTextsOf(el: Element, useLabelsProperty: boolean): string[] {
  const out: string[] = [];
  const own = useLabelsProperty ? (el as HTMLInputElement).labels : null;
  if (own) for (const l of own) out.push(textOf(l));
  const root = el.getRootNode() as Partial<ParentNode>;
  if (!out.length && el.id && root.querySelectorAll) {
    for (const l of Array.from(root.querySelectorAll(`label[for="${CSS.escape(el.id)}"]`))) out.push(textOf(l));
  }
  const wrap = closestAcross(el, 'label');
  if (wrap && !out.length) out.push(textOf(wrap));
  return out;
}

/**
 * The elements carrying the filler's mark `pid` (data-portico-id) in the document and its open shadow roots,
 * as Playwright's CSS finds them (controlRead.ts, sliderSettledAt.ts: one round trip where a locator takes several).
 */
export function markedElements(pid: string): Element[] {
  const selector = `[data-portico-id="${CSS.escape(pid)}"]`;
  const found: Element[] = [];
  const walk = (root: Document | ShadowRoot): void => {
    found.push(...Array.from(root.querySelectorAll(selector)));
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return found;
}
