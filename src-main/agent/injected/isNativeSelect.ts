// Runs in the page, on a control: whether it is a native `<select>`.
export default function isNativeSelect(el: Element): boolean {
  return el.tagName === 'SELECT';
}
