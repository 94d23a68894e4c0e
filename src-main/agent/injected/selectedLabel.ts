// Runs in the page, on a native `<select>`: the label of its (first) selected option, else its value.
export default function selectedLabel(el: Element): string {
  const sel = el as HTMLSelectElement;
  return sel.selectedOptions[0]?.label ?? sel.value;
}
