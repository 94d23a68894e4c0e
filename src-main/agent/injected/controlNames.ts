// Runs in the page, on controls: the names a person reads on each (its labels, aria-label,
// aria-labelledby, placeholder, a fieldset's legend), for the lexicon tier of target resolution.
export default function controlNames(els: Element[]): string[][] {
  return els.map((el) => {
    const out: string[] = [];
    const add = (t: string | null | undefined): void => {
      const s = (t || '').replace(/\s+/g, ' ').trim();
      if (s && s.length < 200) out.push(s);
    };
    const labels = (el as HTMLInputElement).labels;
    if (labels) for (const l of labels) add(l.textContent);
    add(el.getAttribute('aria-label'));
    const by = el.getAttribute('aria-labelledby');
    if (by)
      add(
        by
          .split(/\s+/)
          .map((id) => {
            const n = el.ownerDocument.getElementById(id);
            return n ? n.textContent : '';
          })
          .join(' '),
      );
    add(el.getAttribute('placeholder'));
    if (el.tagName === 'FIELDSET') {
      const lg = el.querySelector(':scope > legend');
      if (lg) add(lg.textContent);
    }
    return out;
  });
}
