// Runs in the page, as part of pageScan.ts: sliders. A `role=slider` element (the WAI-ARIA slider
// pattern: aria-valuemin/max/now, moved by arrow keys) becomes a ScannedControl of type `slider`;
// `<input type=range>` is read by pageScan.ts itself and gets the same `slider` facts. A slider often
// has a number input beside it showing the same value (its "twin", labelled the same): the twin's
// pid is recorded so the target list keeps one control for the one value.
import { byIds, clean, labelTextsOf, visible } from './dom.ts';
import { nearTextOf, pidOf, widgetControl } from './scanFields.ts';
import type { ScannedControl, SliderFacts } from './scanTypes.ts';

const num = (s: string | null | undefined, fallback: number): number => {
  const n = s == null || s.trim() === '' ? Number.NaN : Number(s);
  return Number.isFinite(n) ? n : fallback;
};

/** The number input shown beside a slider for the same value: in the slider's own wrapper, labelled the same. */
function twinOf(el: Element, name: string): HTMLInputElement | null {
  const others = 'input:not([type=hidden]),select,textarea,[role=slider],[role=combobox],[role=radio],[role=checkbox]';
  // The wrapper may hold the slider and its twin (and nothing else that is a field).
  let n = el.parentElement;
  for (let depth = 0; depth < 4 && n && n.tagName !== 'FORM' && n.tagName !== 'BODY'; depth += 1) {
    const fields = Array.from(n.querySelectorAll(others)).filter((f) => f !== el);
    const twins = fields.filter((f) => f.matches('input[type=number],input[type=text],input:not([type])'));
    if (fields.length > twins.length || twins.length > 1) return null;
    const twin = twins[0] as HTMLInputElement | undefined;
    if (twin) {
      const twinName = clean(
        byIds(twin, twin.getAttribute('aria-labelledby')) ||
          twin.getAttribute('aria-label') ||
          labelTextsOf(twin, true).join(' '),
      );
      return twinName && twinName === name ? twin : null;
    }
    n = n.parentElement;
  }
  return null;
}

/** The slider facts of a native `<input type=range>`. */
export function rangeInputFacts(el: HTMLInputElement): SliderFacts {
  const min = num(el.getAttribute('min'), 0);
  const max = num(el.getAttribute('max'), 100);
  const stepAttr = el.getAttribute('step');
  return {
    min,
    max,
    step: stepAttr === 'any' ? 0 : num(stepAttr, 1),
    now: num(el.value, min),
    valueText: el.value,
    twinPid: '',
  };
}

/** Every `role=slider` element among `all`, as controls. */
export function scanSliders(all: Element[]): ScannedControl[] {
  const out: ScannedControl[] = [];
  for (const el of all) {
    if ((el.getAttribute('role') || '').toLowerCase() !== 'slider' || el.tagName === 'INPUT') continue;
    const ariaLabel = clean(el.getAttribute('aria-label'));
    const labelledBy = byIds(el, el.getAttribute('aria-labelledby'));
    const labels = labelTextsOf(el, false).filter(Boolean);
    const name = ariaLabel || labelledBy || labels[0] || '';
    const twin = twinOf(el, name);
    const min = num(el.getAttribute('aria-valuemin'), 0);
    const max = num(el.getAttribute('aria-valuemax'), 100);
    const twinStep = twin ? twin.getAttribute('step') : null;
    const vis = visible(el);
    out.push({
      ...widgetControl(el, 'slider', vis),
      role: 'slider',
      labels,
      ariaLabel,
      labelledBy,
      nearText: name ? '' : nearTextOf(el),
      readOnly: el.getAttribute('aria-readonly') === 'true',
      value: el.getAttribute('aria-valuenow') || '',
      slider: {
        min,
        max,
        // ARIA has no step: the twin input's step when there is one, else 0 (learnt from the first key press).
        step: twinStep && twinStep !== 'any' ? num(twinStep, 0) : 0,
        now: num(el.getAttribute('aria-valuenow'), min),
        valueText: clean(el.getAttribute('aria-valuetext')),
        twinPid: twin ? pidOf(twin) : '',
      },
    });
  }
  return out;
}
