/**
 * A row of one-character boxes (docs/autofill.md, "One character per box"): the code is typed into the first box
 * with no pause in a key (a hand script's pace) when the boxes move the focus on as each character arrives
 * (Chakra's PinInput); a row that moves the focus on later (a timer) then shows other characters in its boxes,
 * is typed box by box, and is read back whole before it is claimed: the form sends exactly the code.
 */
import { autofillTest, describe, expect, html } from './autofillTest.ts';

// `pointerFirst`: each box ignores keys until it has had a pointer press. The pointer presses on the boxes are
// counted into a hidden field sent with the form.
const page = (
  advance: string,
  pointerFirst = false,
): string => `<!doctype html><html lang="en"><head><title>Verify</title></head><body>
<form action="/submit/boxes" method="post">
  <h1>Verify your phone</h1>
  <span id="sc">Security code</span>
  <div role="group" aria-labelledby="sc" id="code">
    ${[1, 2, 3, 4, 5, 6].map(() => '<input type="text" inputmode="numeric" maxlength="1" autocomplete="one-time-code">').join('')}
  </div>
  <input type="hidden" name="code" id="joined"><input type="hidden" name="box_clicks" id="clicks" value="0">
  <button type="submit">Verify</button>
</form>
<script>
  const boxes = [...document.querySelectorAll('#code input')];
  const next = (i) => () => { if (document.activeElement === boxes[i]) boxes[i + 1]?.focus(); };
  for (const b of boxes) {
    let pressed = false;
    b.addEventListener('pointerdown', () => {
      pressed = true;
      const c = document.getElementById('clicks');
      c.value = String(Number(c.value) + 1);
    });
    b.addEventListener('keydown', (e) => { if (${pointerFirst} && !pressed) e.preventDefault(); });
  }
  boxes.forEach((b, i) => b.addEventListener('input', () => {
    document.getElementById('joined').value = boxes.map((x) => x.value).join('');
    if (b.value) ${advance};
  }));
</script></body></html>`;

const test = autofillTest({
  // The focus moves on in the input event itself.
  '/now/form': html(page('next(i)()')),
  // The focus moves on 40 ms after the character arrived (if still in that box).
  '/late/form': html(page('setTimeout(next(i), 40)')),
  // Boxes that take keys only once pressed by the pointer.
  '/pointer/form': html(page('next(i)()', true)),
});

const schema = { type: 'object', properties: { security_code: { type: 'string', title: 'Security code' } } };

describe('a row of one-character boxes', () => {
  test('boxes that move the focus on take the code typed into the first at once, with no pause in a key; a row that moves it late is typed box by box', async ({
    autofill,
    formPage,
  }) => {
    // What the filler asks the keyboard to type, and with what pause between a key's down and up.
    const typed: Array<{ keys: string; delay: number }> = [];
    const keyboard = formPage.keyboard;
    const type = keyboard.type.bind(keyboard);
    keyboard.type = (keys, options) => {
      typed.push({ keys, delay: options?.delay ?? 0 });
      return type(keys, options);
    };
    try {
      const now = await autofill({ path: '/now/form', formData: { security_code: '482 913' }, formSchema: schema });
      expect(now.failure, now.report).toBe('');
      // The first box was focused by a key, not clicked.
      expect(now.posts.map((p) => p.fields)).toEqual([{ code: '482913', box_clicks: '0' }]);
      expect(typed).toEqual([{ keys: '482913', delay: 0 }]);
      typed.length = 0;
      const late = await autofill({ path: '/late/form', formData: { security_code: '482 913' }, formSchema: schema });
      expect(late.failure, late.report).toBe('');
      expect(late.posts.map((p) => p.fields)).toEqual([{ code: '482913', box_clicks: '6' }]);
      // The first box kept the focus while the code was typed: it showed '4' alone, and each box was then given its own.
      expect(typed).toEqual([{ keys: '482913', delay: 0 }, ...[...'482913'].map((keys) => ({ keys, delay: 0 }))]);
      typed.length = 0;
      // Boxes that take no key before a pointer press show nothing after the first try: each is clicked and given its own.
      const pointer = await autofill({
        path: '/pointer/form',
        formData: { security_code: '482 913' },
        formSchema: schema,
      });
      expect(pointer.failure, pointer.report).toBe('');
      expect(pointer.posts.map((p) => p.fields)).toEqual([{ code: '482913', box_clicks: '6' }]);
      expect(typed).toEqual([{ keys: '482913', delay: 0 }, ...[...'482913'].map((keys) => ({ keys, delay: 0 }))]);
    } finally {
      keyboard.type = type;
    }
  });
});
