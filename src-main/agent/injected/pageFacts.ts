// Runs in the page after the last step: label/value pairs (dl, GOV.UK summary lists, two-cell table
// rows), the confirmation block and a reference it shows, for the job result (resultBuilder.ts).
import { clean } from './dom.ts';

import type { RawPageFacts } from './scanTypes.ts';

export type { RawPageFacts };

const CONFIRMATION =
  '.govuk-panel, .govuk-panel--confirmation, [role="status"], .confirmation, .alert-success, .success, #confirmation';
const REFERENCE = '.govuk-panel__body strong, .reference, [data-reference], #reference';

const shownText = (el: Element): string => (el as HTMLElement).innerText;

export default function pageFacts(): RawPageFacts {
  const pairs: RawPageFacts['pairs'] = [];
  for (const dt of Array.from(document.querySelectorAll('dt'))) {
    const dd = dt.nextElementSibling;
    if (dd && dd.tagName === 'DD') pairs.push({ label: clean(shownText(dt)), value: clean(shownText(dd)) });
  }
  for (const row of Array.from(document.querySelectorAll('.govuk-summary-list__row'))) {
    const k = row.querySelector('.govuk-summary-list__key');
    const v = row.querySelector('.govuk-summary-list__value');
    if (k && v && k.tagName !== 'DT') pairs.push({ label: clean(shownText(k)), value: clean(shownText(v)) });
  }
  for (const tr of Array.from(document.querySelectorAll('tr'))) {
    const cells = Array.from(tr.children).filter((c) => c.tagName === 'TD' || c.tagName === 'TH');
    const [first, second] = cells;
    if (cells.length === 2 && first && second)
      pairs.push({ label: clean(shownText(first)), value: clean(shownText(second)) });
  }
  const conf = document.querySelector(CONFIRMATION);
  const h1 = document.querySelector('h1');
  const panelRef = document.querySelector(REFERENCE);
  return {
    url: location.href,
    title: document.title,
    confirmation: clean(conf ? shownText(conf) : h1 ? h1.innerText : ''),
    panel: !!conf,
    panelRef: panelRef ? clean(shownText(panelRef)) : '',
    pairs,
    text: document.body ? document.body.innerText : '',
  };
}
