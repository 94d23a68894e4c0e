/**
 * An ARIA radio, checkbox or switch (ariaFiller.ts `setAriaChecked`: Material's md-radio, md-switch and filter
 * chips, the corpus's material-web forms) has its state and the hit test before its click read together, in one
 * round trip (were two, one after the other). The state is still read back after the click, and a toggle already
 * as wanted is still not clicked.
 */
import type { Frame, Page } from 'playwright-core';

import { autofillTest, describe, expect, html } from './autofillTest.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Notices</title>
<style>[role=switch],[role=checkbox]{display:inline-block;width:32px;height:16px;border:1px solid #888}</style></head><body>
<main id="main"><h1>Notices</h1>
<form id="f" novalidate>
  <p><span id="pl">Go paperless</span> <span id="paperless" role="switch" tabindex="0" aria-checked="false" aria-labelledby="pl"></span></p>
  <p><span id="el">Email me about events</span> <span id="events" role="checkbox" tabindex="0" aria-checked="true" aria-labelledby="el"></span></p>
  <button type="submit">Save</button>
</form></main>
<script>
  const clicks = { paperless: 0, events: 0 };
  for (const id of ['paperless', 'events']) {
    const el = document.getElementById(id);
    el.addEventListener('click', () => {
      clicks[id] += 1;
      el.setAttribute('aria-checked', String(el.getAttribute('aria-checked') !== 'true'));
    });
  }
  const on = (id) => document.getElementById(id).getAttribute('aria-checked') === 'true';
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/notices', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ paperless: on('paperless'), events: on('events'), clicks }) });
    document.getElementById('main').innerHTML = '<h1>Saved</h1><p role="status">Thank you, your choices have been saved.</p>';
  });
</script></body></html>`;

const test = autofillTest({ '/notices/form': html(PAGE) });

/** One `controlRead` page call: its read, the control's mark, and its start and end as places in one sequence. */
interface Read {
  read: string;
  pid: string;
  start: number;
  end: number;
}

/** Runs `run` and returns the `controlRead` calls made meanwhile (frame evaluates naming a read), in start order. */
async function controlReads(page: Page, run: () => Promise<void>): Promise<Read[]> {
  const reads: Read[] = [];
  let seq = 0;
  const proto = Object.getPrototypeOf(page.mainFrame()) as Frame;
  const evaluate = proto.evaluate;
  proto.evaluate = function (this: Frame, fn: unknown, arg?: unknown) {
    const done = (evaluate as (...a: unknown[]) => Promise<unknown>).apply(this, [fn, arg]);
    if (!(arg && typeof arg === 'object' && 'read' in arg && 'pid' in arg)) return done;
    const call: Read = { read: String(arg.read), pid: String(arg.pid), start: seq++, end: -1 };
    reads.push(call);
    return done.finally(() => {
      call.end = seq++;
    });
  } as Frame['evaluate'];
  try {
    await run();
  } finally {
    proto.evaluate = evaluate;
  }
  return reads;
}

describe('an ARIA toggle', () => {
  test('its state and the hit test before its click are one round trip; the state is read back after', async ({
    autofill,
    formPage,
  }) => {
    const reads = await controlReads(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/notices/form',
        submitTo: '/submit/notices',
        formData: { paperless: true, events: true },
        formSchema: {
          type: 'object',
          properties: {
            paperless: { type: 'boolean', title: 'Go paperless' },
            events: { type: 'boolean', title: 'Email me about events' },
          },
        },
      });
      expect(failure, report).toBe('');
      // The switch clicked once; the checkbox already checked, not clicked.
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([{ paperless: true, events: true, clicks: { paperless: 1, events: 0 } }]);
    });
    const switchPid = reads.find((r) => r.read === 'pointerTarget')?.pid;
    expect(switchPid, 'a hit test was made').toBeDefined();
    const own = reads.filter((r) => r.pid === switchPid);
    const state = own.find((r) => r.read === 'ariaCheckedState') as Read;
    const hit = own.find((r) => r.read === 'pointerTarget') as Read;
    // Both sent before either answered.
    expect(Math.max(state.start, hit.start)).toBeLessThan(Math.min(state.end, hit.end));
    // The state is read again after them (the click's read-back).
    expect(own.filter((r) => r.read === 'ariaCheckedState' && r.start > hit.end).length).toBeGreaterThan(0);
  });
});
