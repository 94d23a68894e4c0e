// The in-page scan of form widgets built without native controls: ARIA radio groups, checkboxes
// and switches, select-only comboboxes (a button or div opening a listbox of option divs: MUI
// Select, Headless UI Listbox) and contenteditable text boxes. They become ScannedControls with
// `aria: true`, so grouping, matching and questions treat them like their native counterparts.
//
// This is a fragment of SCAN_SOURCE (pageScan.ts), spliced in after the native controls: it uses
// that scope's helpers (pidOf, clean, textOf, visible, byIds, all, closestAcross, parentAcross,
// legendsOf, groupKeyOf, formKeyOf, nearTextOf, errorTextOf, FIELDS, fieldGroupOf, langOf,
// hintTextOf) and appends to its `controls`. Plain JavaScript, for the same reason as SCAN_SOURCE.
export const ARIA_SCAN_SOURCE = String.raw`
  // aria-labelledby often lists the widget itself ("Age" + the chosen value): drop the self-reference.
  const nameByIds = (el) => byIds(el, (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter((i) => i && i !== el.id).join(' '));
  const ownText = (el) => clean(textOf(el).replace(/\u200b/g, ''));
  // The hidden input holding a widget's value: inside it, or beside it in a wrapper holding no other field.
  const hiddenOf = (el) => {
    let n = el;
    for (let d = 0; d < 3 && n && n.nodeType === 1 && n.tagName !== 'FORM' && n.tagName !== 'BODY'; d++) {
      if (d > 0 && Array.from(n.querySelectorAll(FIELDS)).some((o) => o !== el && !el.contains(o) && !o.contains(el))) break;
      const h = Array.from(n.querySelectorAll('input[type=hidden][name], input[aria-hidden=true][name], select[aria-hidden=true][name]'))
        .find((i) => !/csrf|token|nonce|^_/i.test(i.getAttribute('name')));
      if (h) return h;
      n = parentAcross(n);
    }
    return null;
  };
  const listboxOf = (el) => {
    const ids = (el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '').split(/\s+/).filter(Boolean);
    for (const id of ids) {
      const t = document.getElementById(id);
      if (t) return t.getAttribute('role') === 'listbox' ? t : t.querySelector('[role=listbox]') || t;
    }
    return null;
  };
  const explicitLabels = (el) => {
    const out = [];
    const root = el.getRootNode();
    if (el.id && root.querySelectorAll) for (const l of root.querySelectorAll('label[for="' + CSS.escape(el.id) + '"]')) out.push(textOf(l));
    const wrap = closestAcross(el, 'label');
    if (wrap && !out.length) out.push(textOf(wrap));
    return out.filter(Boolean);
  };
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'option') continue;
    const role = (el.getAttribute('role') || '').toLowerCase();
    let type = '';
    if (role === 'radio') type = 'radio';
    else if (role === 'checkbox' || role === 'switch') type = 'checkbox';
    else if (role === 'combobox' || el.getAttribute('aria-haspopup') === 'listbox') {
      // The ARIA 1.0 pattern wraps a text input in the combobox: the input is the field.
      if (el.querySelector('input:not([type=hidden]),textarea')) continue;
      type = 'listbox';
    } else if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) type = 'editable';
    if (!type) continue;
    const vis = visible(el);
    const group = type === 'radio' ? closestAcross(el, '[role=radiogroup]') || parentAcross(el)
      : type === 'checkbox' ? closestAcross(el, '[role=group],fieldset') : null;
    const hidden = hiddenOf(type === 'radio' ? group : el);
    const checkboxGroup = group && type === 'checkbox' && group.querySelectorAll('[role=checkbox]').length > 1 ? group : null;
    const labels = explicitLabels(el);
    const ariaLabel = clean(el.getAttribute('aria-label'));
    const labelledBy = nameByIds(el);
    const text = ownText(el);
    // Radios and checkboxes usually carry their label as content; a listbox trigger shows its value instead.
    if (!labels.length && !ariaLabel && !labelledBy && (type === 'radio' || type === 'checkbox') && text) labels.push(text);
    let value = '';
    let options = [];
    if (type === 'radio' || type === 'checkbox') value = el.getAttribute('data-value') || el.getAttribute('value') || text || ariaLabel || labelledBy;
    else if (type === 'editable') value = clean(el.innerText);
    else {
      value = hidden ? hidden.value : text;
      const lb = listboxOf(el);
      if (lb) options = Array.from(lb.querySelectorAll('[role=option]')).map((o) => ({ label: clean(o.getAttribute('aria-label') || textOf(o)),
        value: o.getAttribute('data-value') || '', disabled: o.getAttribute('aria-disabled') === 'true' }));
    }
    const groupLabelled = group && (group.getAttribute('aria-label') || group.getAttribute('aria-labelledby'));
    controls.push({
      pid: pidOf(el), tag, type, role, name: hidden ? hidden.getAttribute('name') || '' : '', id: el.id || '',
      labels, ariaLabel, labelledBy, describedBy: byIds(el, el.getAttribute('aria-describedby')),
      placeholder: clean(el.getAttribute('aria-placeholder') || el.getAttribute('data-placeholder') || el.getAttribute('placeholder')),
      title: clean(el.getAttribute('title')), legends: legendsOf(el),
      nearText: type === 'radio' && group && !groupLabelled ? nearTextOf(group) : labels.length || ariaLabel || labelledBy ? '' : nearTextOf(el),
      autocomplete: '', ariaAutocomplete: '',
      required: el.getAttribute('aria-required') === 'true' || !!(group && group.getAttribute('aria-required') === 'true') || !!(hidden && hidden.required),
      visible: vis, disabled: el.getAttribute('aria-disabled') === 'true' || el.disabled === true, readOnly: el.getAttribute('aria-readonly') === 'true',
      value, checked: el.getAttribute('aria-checked') === 'true', options, multiple: false, valid: el.getAttribute('aria-invalid') !== 'true',
      validationMessage: '', errorText: vis ? errorTextOf(el) : '', pattern: '', maxLength: -1,
      // Radios group by their radiogroup, checkboxes by a group holding several; others stand alone.
      groupKey: type === 'radio' ? pidOf(group) : type === 'checkbox' ? pidOf(checkboxGroup || el) : groupKeyOf(el), formKey: formKeyOf(el),
      hasListbox: type === 'listbox', aria: true, hiddenPid: hidden ? pidOf(hidden) : '', datalist: false, lang: langOf(el),
      hintText: type === 'editable' && vis ? hintTextOf(el) : '', affixes: '', labelOnly: false, mask: '',
    });
  }
`;
