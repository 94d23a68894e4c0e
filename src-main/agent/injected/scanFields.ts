// Facts the page scan reads off any field, native or ARIA (used by pageScan.ts and ariaScan.ts):
// its marker, group, form, legends, nearby text, error message, language and hint text.
import {
  byIds,
  clean,
  closestAcross,
  elementById,
  FIELDS,
  flatChildren,
  flatQueryAll,
  NATIVE_FIELDS,
  ownGroup,
  parentAcross,
  textOf,
  visible,
} from './dom.ts';
import type { ScannedControl } from './scanTypes.ts';

const seq = window as unknown as { __porticoSeq?: number };

/**
 * The marker of `el`, stamped on first sight; stable across scans of the same page, never reused in a
 * document, and numbered from the document's time origin so that a later document of the same frame does
 * not hand out the marks of an earlier one (an action abandoned on a control a re-render took away must
 * never find another document's control by its mark).
 */
export function pidOf(el: Element): string {
  seq.__porticoSeq = seq.__porticoSeq || (Math.floor(performance.timeOrigin) % 1e9) * 1000;
  let p = el.getAttribute('data-portico-id');
  if (!p) {
    seq.__porticoSeq += 1;
    p = `p${seq.__porticoSeq}`;
    el.setAttribute('data-portico-id', p);
  }
  return p;
}

/** Ancestor fieldset legends / group labels, innermost first. */
export function legendsOf(el: Element): string[] {
  const out: string[] = [];
  let n = parentAcross(el);
  while (n && n.nodeType === Node.ELEMENT_NODE) {
    const e = n as Element;
    const lg = e.tagName === 'FIELDSET' ? Array.from(e.children).find((c) => c.tagName === 'LEGEND') : undefined;
    if (lg) out.push(textOf(lg));
    else {
      const role = e.getAttribute('role');
      if (role === 'group' || role === 'radiogroup') {
        const t = e.getAttribute('aria-label') || byIds(e, e.getAttribute('aria-labelledby'));
        if (t) out.push(clean(t));
      }
    }
    n = parentAcross(e);
  }
  return out;
}

/** The closest container (fieldset / role=group / form, else the grandparent) used to group split dates. */
export function groupKeyOf(el: Element): string {
  let n = parentAcross(el);
  let depth = 0;
  while (n && n.nodeType === Node.ELEMENT_NODE && depth < 4) {
    const e = n as Element;
    if (e.tagName === 'FIELDSET' || e.getAttribute('role') === 'group' || e.tagName === 'FORM') return pidOf(e);
    n = parentAcross(e);
    depth += 1;
  }
  const p = parentAcross(el);
  const gp = p && parentAcross(p);
  return gp && gp.nodeType === Node.ELEMENT_NODE ? pidOf(gp as Element) : '';
}

export function formKeyOf(el: Element): string {
  const f = (el as HTMLInputElement).form || closestAcross(el, 'form');
  return f ? pidOf(f) : '';
}

/** Text just before the control (previous table cell, preceding sibling text). */
export function nearTextOf(el: Element): string {
  const td = closestAcross(el, 'td');
  if (td?.previousElementSibling) return textOf(td.previousElementSibling).slice(0, 120);
  let n: Node | null = el;
  for (let depth = 0; depth < 3 && n; depth++) {
    let s: ChildNode | null = (n as ChildNode).previousSibling;
    while (s) {
      if (s.nodeType === Node.TEXT_NODE && clean(s.nodeValue)) return clean(s.nodeValue).slice(0, 120);
      if (s.nodeType === Node.ELEMENT_NODE) {
        if ((s as Element).matches('input,select,textarea,button')) return '';
        const t = textOf(s);
        if (t) return t.slice(0, 120);
      }
      s = s.previousSibling;
    }
    n = parentAcross(n);
    const tag = n ? (n as Element).tagName : '';
    if (tag === 'FORM' || tag === 'FIELDSET' || tag === 'BODY') break;
  }
  return '';
}

const ERR_CLASS = /(^|[-_ ])(error|errors|invalid|danger)([-_ ]|$)|error-message|invalid-feedback/i;
/** Parts of one split date ("dob-day", "dob[month]") share a stem and count as one field. */
const stemOf = (name: string | null | undefined): string =>
  (name || '').replace(/[-_.[]?(day|month|year|dd|mm|yyyy)\]?$/i, '');

/** The message the page shows about this field: aria-errormessage, an error it describes itself by, or one in its own group. */
export function errorTextOf(el: Element): string {
  const parts: string[] = [];
  const em = el.getAttribute('aria-errormessage');
  if (em) parts.push(byIds(el, em));
  for (const id of (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean)) {
    const t = elementById(el, id);
    if (t && (ERR_CLASS.test(String(t.className || '')) || ERR_CLASS.test(id)) && visible(t)) parts.push(textOf(t));
  }
  if (!parts.length) {
    const name = (el as { name?: string }).name;
    const group = ownGroup(el, {
      fields: NATIVE_FIELDS,
      maxDepth: 4,
      sameField: (o) => !!name && stemOf((o as HTMLInputElement).name) === stemOf(name),
    });
    if (group) {
      for (const c of Array.from(group.querySelectorAll('[class*="error"], [class*="invalid"], [role="alert"]'))) {
        if (c.matches('input,select,textarea,fieldset,.govuk-form-group--error,.form-group--error')) continue;
        if (closestAcross(c, '.govuk-error-summary,.error-summary')) continue;
        if (visible(c)) {
          const t = textOf(c);
          if (t) {
            parts.push(t);
            break;
          }
        }
      }
    }
  }
  return clean(parts.join(' ')).slice(0, 300);
}

export function langOf(el: Element): string {
  const l = closestAcross(el, '[lang]');
  return l ? l.getAttribute('lang') || '' : document.documentElement.lang || '';
}

/** Text of the control's own group (label, hint, example), for format hints not tied by aria. */
export function hintTextOf(el: Element): string {
  const g = ownGroup(el, { fields: FIELDS, maxDepth: 4 });
  return g ? textOf(g).slice(0, 300) : '';
}

/** Whether `a` holds two fields or more, those in open shadow roots under it included (a row of web components). */
function holdsTwoFields(a: Element): boolean {
  if (a.querySelectorAll(FIELDS).length >= 2) return true;
  return flatQueryAll(a, FIELDS).length >= 2;
}

/**
 * The repeated row holding `el` (a field array's "Attendee 1", "Attendee 2"): the innermost ancestor
 * that has a sibling of the same tag and class, each holding two fields or more. Fields one per row
 * (form groups) are no rows. Ancestors are those of the flat tree, so a control rendered in a web
 * component's shadow root belongs to the row its host sits in. Bounded: six ancestors outside shadow
 * roots (the component's own wrappers do not count), never past the form.
 */
export function rowOf(el: Element): Pick<ScannedControl, 'row' | 'rowSet' | 'rowIndex'> {
  let n = parentAcross(el);
  for (let depth = 0, steps = 0; n && depth < 6 && steps < 24; steps++, n = parentAcross(n)) {
    if (n.nodeType !== Node.ELEMENT_NODE) break;
    const a = n as Element;
    if (a.getRootNode().nodeType !== Node.DOCUMENT_FRAGMENT_NODE) depth += 1;
    const parent = parentAcross(a);
    if (!parent || parent.nodeType !== Node.ELEMENT_NODE) break;
    if (a.tagName === 'FORM' || a.tagName === 'BODY' || (parent as Element).tagName === 'BODY') break;
    if (!holdsTwoFields(a)) continue;
    const cls = String(a.className || '');
    const rows = flatChildren(parent).filter(
      (s): s is Element =>
        s.nodeType === Node.ELEMENT_NODE &&
        (s as Element).tagName === a.tagName &&
        String((s as Element).className || '') === cls &&
        holdsTwoFields(s as Element),
    );
    if (rows.length >= 2) return { row: pidOf(a), rowSet: pidOf(parent as Element), rowIndex: rows.indexOf(a) };
  }
  return {};
}

/**
 * A control found by a widget scan (slider, calendar field, one-character boxes): the facts read off
 * `el` the same way for each — marker, tag, role, id, description, title, legends, ARIA required /
 * disabled / invalid, error text when shown, group, form, language — and every other field empty.
 * The caller spreads it and sets what its widget says (and its field-array row, `rowOf`, if it reads one).
 */
export function widgetControl(el: Element, type: string, vis: boolean): ScannedControl {
  return {
    pid: pidOf(el),
    tag: el.tagName.toLowerCase(),
    type,
    role: (el.getAttribute('role') || '').toLowerCase(),
    name: '',
    id: el.id || '',
    labels: [],
    ariaLabel: '',
    labelledBy: '',
    describedBy: byIds(el, el.getAttribute('aria-describedby')),
    placeholder: '',
    title: clean(el.getAttribute('title')),
    legends: legendsOf(el),
    nearText: '',
    autocomplete: '',
    ariaAutocomplete: '',
    required: el.getAttribute('aria-required') === 'true',
    visible: vis,
    disabled: el.getAttribute('aria-disabled') === 'true',
    readOnly: false,
    value: '',
    checked: false,
    options: [],
    multiple: false,
    valid: el.getAttribute('aria-invalid') !== 'true',
    validationMessage: '',
    errorText: vis ? errorTextOf(el) : '',
    pattern: '',
    maxLength: -1,
    groupKey: groupKeyOf(el),
    formKey: formKeyOf(el),
    hasListbox: false,
    aria: true,
    hiddenPid: '',
    datalist: false,
    lang: langOf(el),
    hintText: '',
    affixes: '',
    labelOnly: false,
    mask: '',
  };
}
