// Runs in the page, before a select-only combobox is opened: every `role=listbox` already there is
// marked with `token` (data-portico-before), so markCascadeList.ts finds the one the click opened.
export default function markListsBefore(t: string): void {
  for (const l of Array.from(document.querySelectorAll('[role=listbox]'))) l.setAttribute('data-portico-before', t);
}
