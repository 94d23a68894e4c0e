import type { Frame } from 'playwright-core';

import { ARIA_SCAN_SOURCE } from './ariaScan.ts';

/** One option of a `<select>` (or a listbox). */
export interface ScannedOption {
  label: string;
  value: string;
  disabled: boolean;
}

/** A form control as the in-page scan sees it; `pid` is a marker attribute stamped on the element. */
export interface ScannedControl {
  pid: string;
  tag: string;
  type: string;
  role: string;
  name: string;
  id: string;
  /** `<label for>` and wrapping labels. */
  labels: string[];
  ariaLabel: string;
  labelledBy: string;
  describedBy: string;
  placeholder: string;
  title: string;
  /** Ancestor fieldset legends / group labels, innermost first. */
  legends: string[];
  /** Text just before the control (previous table cell, preceding sibling text). */
  nearText: string;
  autocomplete: string;
  ariaAutocomplete: string;
  required: boolean;
  visible: boolean;
  disabled: boolean;
  readOnly: boolean;
  value: string;
  checked: boolean;
  options: ScannedOption[];
  multiple: boolean;
  valid: boolean;
  validationMessage: string;
  errorText: string;
  pattern: string;
  maxLength: number;
  /** Id of the closest container (fieldset / role=group / parent) used to group split dates. */
  groupKey: string;
  formKey: string;
  hasListbox: boolean;
  /** A widget built from ARIA roles or contenteditable rather than a native form control. */
  aria: boolean;
  /** The hidden input an ARIA widget keeps its value in (what the site receives), when it has one. */
  hiddenPid: string;
  /** `<input list>`: `options` are the datalist's suggestions. */
  datalist: boolean;
  /** The language the control sits in (closest `lang` attribute). */
  lang: string;
  /** Text of the control's own group (label, hint, example), for format hints not tied by aria. */
  hintText: string;
  /** Prefix and suffix texts drawn beside an input ("£", "kg", "per hour"). */
  affixes: string;
  /** A radio, checkbox or upload drawn by its label while the input itself sits off-screen or under it: click the label. */
  labelOnly: boolean;
  /** The shape a masked input wants: `data-charset` ("A#A #A#") or `data-placeholder` ("___ __ ____"), when the page gives one. */
  mask: string;
}

/** A clickable that may advance the form. */
export interface ScannedButton {
  pid: string;
  text: string;
  tag: string;
  type: string;
  visible: boolean;
  disabled: boolean;
  formKey: string;
  primary: boolean;
}

/** Everything one frame offers. */
export interface FrameScan {
  url: string;
  title: string;
  headings: string[];
  controls: ScannedControl[];
  buttons: ScannedButton[];
  /** Page-level error messages (error summaries, alerts); `targetPid` when a summary link points at a control. */
  errors: Array<{ text: string; targetPid: string }>;
  bodyText: string;
}

// Kept as plain JavaScript source so it survives any transpiler (vitest, Node type stripping)
// unchanged when Playwright serialises it into the page. It walks open shadow roots too.
const SCAN_SOURCE = String.raw`(() => {
  const w = window;
  w.__porticoSeq = w.__porticoSeq || 0;
  const pidOf = (el) => {
    let p = el.getAttribute('data-portico-id');
    if (!p) { w.__porticoSeq += 1; p = 'p' + w.__porticoSeq; el.setAttribute('data-portico-id', p); }
    return p;
  };
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const SKIP = new Set(['SCRIPT', 'STYLE', 'SELECT', 'OPTION', 'TEXTAREA', 'TEMPLATE', 'NOSCRIPT']);
  const textOf = (node) => {
    let out = '';
    const walk = (n) => {
      if (n.nodeType === 3) { out += n.nodeValue + ' '; return; }
      if (n.nodeType !== 1 && n.nodeType !== 11) return;
      if (n.nodeType === 1) {
        if (SKIP.has(n.tagName)) return;
        if (n.tagName === 'INPUT') return;
        const cs = getComputedStyle(n);
        if (cs.display === 'none') return;
      }
      if (n.shadowRoot) walk(n.shadowRoot);
      for (const c of n.childNodes) walk(c);
    };
    walk(node);
    return clean(out);
  };
  const visible = (el) => {
    if (!el.isConnected) return false;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const byIds = (el, ids) => {
    const root = el.getRootNode();
    return clean((ids || '').split(/\s+/).filter(Boolean).map((i) => {
      const t = (root.getElementById ? root.getElementById(i) : null) || document.getElementById(i);
      return t ? textOf(t) : '';
    }).join(' '));
  };
  const all = [];
  const walkRoot = (root) => {
    const els = root.querySelectorAll('*');
    for (const el of els) {
      all.push(el);
      if (el.shadowRoot) walkRoot(el.shadowRoot);
    }
  };
  walkRoot(document);
  const closestAcross = (el, sel) => {
    let n = el;
    while (n) {
      if (n.nodeType === 1 && n.matches(sel)) return n;
      n = n.parentNode || (n.host ? n.host : null);
      if (n && n.nodeType === 11) n = n.host;
    }
    return null;
  };
  const parentAcross = (n) => { const p = n.parentNode; return p && p.nodeType === 11 ? p.host : p; };
  const legendsOf = (el) => {
    const out = [];
    let n = parentAcross(el);
    while (n && n.nodeType === 1) {
      if (n.tagName === 'FIELDSET') {
        const lg = Array.from(n.children).find((c) => c.tagName === 'LEGEND');
        if (lg) out.push(textOf(lg));
      } else {
        const role = n.getAttribute('role');
        if (role === 'group' || role === 'radiogroup') {
          const t = n.getAttribute('aria-label') || byIds(n, n.getAttribute('aria-labelledby'));
          if (t) out.push(clean(t));
        }
      }
      n = parentAcross(n);
    }
    return out;
  };
  const groupKeyOf = (el) => {
    let n = parentAcross(el);
    let depth = 0;
    while (n && n.nodeType === 1 && depth < 4) {
      if (n.tagName === 'FIELDSET' || n.getAttribute('role') === 'group' || n.tagName === 'FORM') return pidOf(n);
      n = parentAcross(n); depth += 1;
    }
    const p = parentAcross(el);
    const gp = p && parentAcross(p);
    return gp && gp.nodeType === 1 ? pidOf(gp) : '';
  };
  const formKeyOf = (el) => {
    const f = el.form || closestAcross(el, 'form');
    return f ? pidOf(f) : '';
  };
  const nearTextOf = (el) => {
    const td = closestAcross(el, 'td');
    if (td && td.previousElementSibling) return textOf(td.previousElementSibling).slice(0, 120);
    let n = el;
    for (let depth = 0; depth < 3 && n; depth++) {
      let s = n.previousSibling;
      while (s) {
        if (s.nodeType === 3 && clean(s.nodeValue)) return clean(s.nodeValue).slice(0, 120);
        if (s.nodeType === 1) {
          if (s.matches('input,select,textarea,button')) return '';
          const t = textOf(s);
          if (t) return t.slice(0, 120);
        }
        s = s.previousSibling;
      }
      n = parentAcross(n);
      if (n && (n.tagName === 'FORM' || n.tagName === 'FIELDSET' || n.tagName === 'BODY')) break;
    }
    return '';
  };
  const ERR_CLASS = /(^|[-_ ])(error|errors|invalid|danger)([-_ ]|$)|error-message|invalid-feedback/i;
  const errorTextOf = (el) => {
    const parts = [];
    const em = el.getAttribute('aria-errormessage');
    if (em) parts.push(byIds(el, em));
    for (const id of (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean)) {
      const root = el.getRootNode();
      const t = (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
      if (t && (ERR_CLASS.test(t.className || '') || ERR_CLASS.test(id)) && visible(t)) parts.push(textOf(t));
    }
    if (!parts.length) {
      // The field's own group: the largest ancestor (up to 4 levels) holding no other field, so a
      // neighbour's message is never blamed on this one. Parts of one split date count as one field.
      const stemOf = (n) => (n || '').replace(/[-_.[]?(day|month|year|dd|mm|yyyy)\]?$/i, '');
      let group = null;
      let n = parentAcross(el);
      for (let d = 0; d < 4 && n && n.nodeType === 1 && n.tagName !== 'FORM' && n.tagName !== 'BODY'; d++) {
        const others = Array.from(n.querySelectorAll('input:not([type=hidden]),select,textarea'))
          .filter((o) => o !== el && !(el.name && stemOf(o.name) === stemOf(el.name)));
        if (others.length) break;
        group = n;
        n = parentAcross(n);
      }
      if (group) {
        for (const c of group.querySelectorAll('[class*="error"], [class*="invalid"], [role="alert"]')) {
          if (c.matches('input,select,textarea,fieldset,.govuk-form-group--error,.form-group--error')) continue;
          if (closestAcross(c, '.govuk-error-summary,.error-summary')) continue;
          if (visible(c)) { const t = textOf(c); if (t) { parts.push(t); break; } }
        }
      }
    }
    return clean(parts.join(' ')).slice(0, 300);
  };
  const hiddenMirror = (sel) => sel.getAttribute('aria-hidden') === 'true' && sel.tabIndex < 0;
  // The combobox a hidden select sits beside, in the same wrapper.
  const mirroredSelectOf = (sel) => hiddenMirror(sel) && !!(sel.parentElement && sel.parentElement.querySelector('[role=combobox]'));
  const mirrorSelectFor = (el) => {
    const wrapper = el.parentElement && el.parentElement.closest('.usa-combo-box, [class*=combo]') || el.parentElement;
    const sel = wrapper ? Array.from(wrapper.querySelectorAll('select')).find(hiddenMirror) : null;
    return sel || null;
  };
  const FIELDS = 'input:not([type=hidden]):not([aria-hidden=true]),select,textarea,[role=radio],[role=checkbox],[role=switch],[role=combobox],[aria-haspopup=listbox],[contenteditable]:not([contenteditable=false])';
  // The field's own group: the largest ancestor (up to 4 levels) holding no other field.
  const fieldGroupOf = (el) => {
    let group = null;
    let n = parentAcross(el);
    for (let d = 0; d < 4 && n && n.nodeType === 1 && n.tagName !== 'FORM' && n.tagName !== 'BODY'; d++) {
      if (Array.from(n.querySelectorAll(FIELDS)).some((o) => o !== el && !el.contains(o) && !o.contains(el))) break;
      group = n;
      n = parentAcross(n);
    }
    return group;
  };
  const langOf = (el) => { const l = closestAcross(el, '[lang]'); return l ? l.getAttribute('lang') || '' : document.documentElement.lang || ''; };
  // Group text is only read for fields that may hold a date (it is where a format example sits).
  const DATEISH = /dat|dob|birth|born|day|dd|yy|expir|issue|when|valid|start|end|from|until/i;
  const hintTextOf = (el) => { const g = fieldGroupOf(el); return g ? textOf(g).slice(0, 300) : ''; };
  // Prefix/suffix boxes (GOV.UK, NHS, USWDS, Bootstrap input groups) sit beside the input inside one wrapper.
  const AFFIX = /(^|[-_ ])(prefix|suffix|addon|input-group-text)([-_ ]|$)|__(prefix|suffix)/i;
  const affixesOf = (el) => {
    const out = [];
    const scope = el.parentElement && el.parentElement.querySelectorAll('input,select,textarea').length === 1 ? el.parentElement : null;
    for (const sib of scope ? scope.children : []) {
      if (sib !== el && AFFIX.test(sib.className || '')) { const t = clean(sib.textContent); if (t) out.push(t); }
    }
    return out.join(' ').slice(0, 60);
  };
  const controls = [];
  const buttons = [];
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    const role = (el.getAttribute('role') || '').toLowerCase();
    const isField = tag === 'input' || tag === 'select' || tag === 'textarea';
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : tag;
    // Buttons that open a listbox or carry a checked state are form widgets (ariaScan), not navigation.
    const widget = el.getAttribute('aria-haspopup') === 'listbox' || /^(combobox|switch|checkbox|radio|option)$/.test(role);
    if (widget && !isField) continue;
    if (tag === 'button' || (tag === 'input' && (type === 'submit' || type === 'button' || type === 'image')) || role === 'button' || tag === 'a') {
      const text = clean(tag === 'input' ? (el.value || el.getAttribute('aria-label') || '') : (el.getAttribute('aria-label') || textOf(el)));
      if (!text || text.length > 80) continue;
      if (tag === 'a' && !role && !/continue|next|start|submit|send|confirm|proceed|apply|finish/i.test(text)) continue;
      buttons.push({ pid: pidOf(el), text, tag, type: tag === 'button' ? (el.getAttribute('type') || 'submit').toLowerCase() : type,
        visible: visible(el), disabled: !!el.disabled || el.getAttribute('aria-disabled') === 'true', formKey: formKeyOf(el),
        primary: /primary|submit|cta|govuk-button(?!--secondary)/i.test(el.className || '') });
      continue;
    }
    if (!isField) continue;
    if (type === 'hidden' || type === 'reset') continue;
    // Value mirrors of custom widgets (MUI's native input, Radix's bubble inputs): hidden from people,
    // so not a field to fill. Selects stay: select2 & co. hide theirs the same way and still obey it.
    // (A file input hidden behind its "Choose file" button is the field itself: see the proxy below.)
    if (tag === 'input' && type !== 'file' && el.getAttribute('aria-hidden') === 'true' && el.tabIndex < 0) continue;
    // A select hidden behind a combobox that drives it (USWDS combo box, select2's role=combobox) is
    // that combobox's mirror: the combobox is the field, and it takes the select's options.
    if (tag === 'select' && mirroredSelectOf(el)) continue;
    const labels = [];
    if (el.labels) for (const l of el.labels) labels.push(textOf(l));
    const root = el.getRootNode();
    if (!labels.length && el.id && root.querySelectorAll) {
      for (const l of root.querySelectorAll('label[for="' + CSS.escape(el.id) + '"]')) labels.push(textOf(l));
    }
    const wrap = closestAcross(el, 'label');
    if (wrap && !labels.length) labels.push(textOf(wrap));
    let vis = visible(el);
    let labelOnly = false;
    if (vis && (type === 'radio' || type === 'checkbox')) {
      // USWDS and others move the real input off-screen and draw it with the label.
      const r = el.getBoundingClientRect();
      const off = r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth + 1000 || (r.width <= 1 && r.height <= 1);
      const l = (el.labels && el.labels[0]) || closestAcross(el, 'label');
      if (off && l && visible(l)) labelOnly = true;
    }
    if (!vis && tag === 'select' && el.parentElement && visible(el.parentElement)) {
      // Enhanced selects (select2, chosen, choices.js, tom-select) hide the native select next to their widget.
      vis = Array.from(el.parentElement.children).some((s) => s !== el && /select2|chosen|choices|selectize|ts-wrapper|ts-control/i.test(s.className || '') && visible(s));
    }
    if (!vis && (type === 'radio' || type === 'checkbox' || type === 'file')) {
      // Custom-styled radios hide the input and show the label.
      const l = (el.labels && el.labels[0]) || wrap;
      vis = !!l && visible(l);
      labelOnly = vis;
    }
    if (!vis && type === 'file' && el.parentElement) {
      // Enhanced uploads (GOV.UK, NHS.UK) hide the input behind a "Choose file" button that takes its
      // id and label; the input still receives the files.
      const proxy = Array.from(el.parentElement.children).find((s) => s !== el && s.matches('button,[role=button]') && visible(s));
      if (proxy) {
        vis = true;
        if (!labels.length && proxy.id) for (const l of root.querySelectorAll('label[for="' + CSS.escape(proxy.id) + '"]')) labels.push(textOf(l));
      }
    }
    const list = tag === 'input' && el.list ? el.list : null;
    const mirror = role === 'combobox' ? mirrorSelectFor(el) : null;
    const optionSource = tag === 'select' ? el : list || mirror;
    const options = optionSource ? Array.from(optionSource.options).filter((o, i) => optionSource !== mirror || i > 0 || o.value !== '')
      .map((o) => ({ label: clean(o.label || o.textContent) || o.value, value: o.value, disabled: o.disabled })) : [];
    const controlsId = el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '';
    controls.push({
      pid: pidOf(el), tag, type, role, name: el.getAttribute('name') || '', id: el.id || '',
      labels: labels.filter(Boolean), ariaLabel: clean(el.getAttribute('aria-label')),
      labelledBy: byIds(el, el.getAttribute('aria-labelledby')), describedBy: byIds(el, el.getAttribute('aria-describedby')),
      placeholder: clean(el.getAttribute('placeholder')), title: clean(el.getAttribute('title')),
      legends: legendsOf(el), nearText: labels.length ? '' : nearTextOf(el),
      autocomplete: (el.getAttribute('autocomplete') || '').toLowerCase(), ariaAutocomplete: (el.getAttribute('aria-autocomplete') || '').toLowerCase(),
      required: !!el.required || el.getAttribute('aria-required') === 'true', visible: vis, disabled: !!el.disabled,
      readOnly: !!el.readOnly, value: type === 'file' ? (el.files && el.files.length ? el.files[0].name : '') : String(el.value == null ? '' : el.value),
      checked: !!el.checked, options, multiple: !!el.multiple,
      valid: el.validity ? el.validity.valid : true, validationMessage: el.validationMessage || '',
      errorText: vis ? errorTextOf(el) : '', pattern: el.getAttribute('pattern') || '', maxLength: el.maxLength > 0 ? el.maxLength : -1,
      groupKey: groupKeyOf(el), formKey: formKeyOf(el),
      hasListbox: role === 'combobox' || /list|both/.test(el.getAttribute('aria-autocomplete') || '') || !!controlsId,
      aria: false, hiddenPid: '', datalist: !!list, lang: langOf(el), hintText: /^(text|search|tel)$/.test(type) && vis && DATEISH.test([el.name, el.id, el.placeholder, el.getAttribute('aria-label'), ...labels].join(' ')) ? hintTextOf(el) : '',
      affixes: tag === 'input' ? affixesOf(el) : '', labelOnly, mask: el.getAttribute('data-charset') || el.getAttribute('data-placeholder') || '',
    });
  }
  ${ARIA_SCAN_SOURCE}
  const errors = [];
  const summaries = all.filter((e) => e.matches('.govuk-error-summary, .error-summary, [role="alert"], .alert-danger, .alert-error, .errors, .form-errors, [aria-live="assertive"]') && visible(e));
  for (const s of summaries) {
    if (summaries.some((o) => o !== s && o.contains(s))) continue;
    const links = s.querySelectorAll('a[href^="#"]');
    if (links.length) {
      for (const a of links) {
        const id = decodeURIComponent(a.getAttribute('href').slice(1));
        let t = id ? document.getElementById(id) : null;
        if (!t && id) t = document.querySelector('[name="' + CSS.escape(id) + '"]');
        if (t && !t.matches('input,select,textarea')) t = t.querySelector('input:not([type=hidden]),select,textarea');
        errors.push({ text: textOf(a), targetPid: t ? pidOf(t) : '' });
      }
    } else {
      const t = textOf(s);
      if (t) errors.push({ text: t.slice(0, 400), targetPid: '' });
    }
  }
  const headings = all.filter((e) => /^H[1-3]$/.test(e.tagName) && visible(e)).map(textOf).filter(Boolean).slice(0, 8);
  return { url: location.href, title: document.title, headings, controls, buttons, errors,
    bodyText: (document.body ? document.body.innerText : '').slice(0, 20000) };
})()`;

/** Scans one frame; a frame that is detached or navigating yields null. */
export async function scanFrame(frame: Frame): Promise<FrameScan | null> {
  try {
    return (await frame.evaluate(SCAN_SOURCE)) as FrameScan;
  } catch {
    return null;
  }
}
