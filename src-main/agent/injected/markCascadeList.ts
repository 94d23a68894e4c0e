// Runs in the page: the list a cascader opened — the one visible `role=listbox` not open before the
// click (markListsBefore.ts marked those with `token`), holding no options but items (`role=none` /
// `presentation` children, or `li`s) — marked with `token` (data-portico-cascade). Returns whether
// there is exactly one.
export default function markCascadeList(t: string): boolean {
  const lists = Array.from(document.querySelectorAll('[role=listbox]')).filter((l) => {
    const r = l.getBoundingClientRect();
    return (
      l.getAttribute('data-portico-before') !== t &&
      r.width > 0 &&
      r.height > 0 &&
      !l.querySelector('[role=option]') &&
      Array.from(l.children).some(
        (c) => /^(none|presentation)$/.test(c.getAttribute('role') ?? '') || c.tagName === 'LI',
      )
    );
  });
  const list = lists[0];
  if (lists.length !== 1 || !list) return false;
  list.setAttribute('data-portico-cascade', t);
  return true;
}
