// The scripts that run inside web pages (src-main/agent/injected/): built from TypeScript into
// self-contained sources, and the shared DOM helpers they all use, checked in real Chromium.
import { readFileSync } from 'node:fs';

import type { Page } from 'playwright-core';

import * as injected from '../../src-main/agent/injected/index.ts';
import { bundleScript, entries, generate, outputPath } from '../../scripts/build-injected.mjs';
import { describe, expect, test } from '../helpers/fixtures.ts';

/** The injected functions by their exported name, as the engine gets them. */
const functions = injected as unknown as Record<string, unknown>;

describe('injected scripts as built', () => {
  test('the committed generated/scripts.ts is what a fresh build of the sources gives (run node scripts/build-injected.mjs)', async () => {
    expect(readFileSync(outputPath, 'utf8')).toBe(await generate());
  });

  test('each entry is a self-contained function with no module import, export or require left', () => {
    expect(Object.values(entries).sort()).toEqual([
      'ariaCheckedState',
      'bodyText',
      'calendarGrid',
      'calendarOpen',
      'cascadeLabels',
      'clickSettled',
      'clickToggle',
      'controlNames',
      'controlRead',
      'controlState',
      'describeElements',
      'drawnByLabel',
      'elementText',
      'enterGuard',
      'findListbox',
      'frameLocation',
      'framesDrawn',
      'hasFocus',
      'isNativeSelect',
      'listTakesMany',
      'liveView',
      'loginScan',
      'markCascadeList',
      'markField',
      'markFilterBox',
      'markFocused',
      'markListsBefore',
      'markTried',
      'matchRows',
      'modelScan',
      'nativeOptions',
      'nextTreeItem',
      'optionNames',
      'optionStates',
      'optionsCheckable',
      'pageFacts',
      'pageText',
      'pairedValue',
      'perceivable',
      'pointerTarget',
      'probe',
      'readAndLeave',
      'readOptions',
      'recordingMask',
      'resourceStarts',
      'scanPage',
      'scrollPage',
      'secretFieldsShown',
      'segmentReading',
      'selectedLabel',
      'shownValue',
      'sliderSettled',
      'sliderSettledAt',
      'tagChips',
      'takeMarked',
      'toggleByLabel',
      'treeNodes',
      'twoFrames',
      'uniqueSelector',
    ]);
    for (const name of Object.values(entries)) {
      const fn = functions[name];
      expect(typeof fn, name).toBe('function');
      const text = String(fn);
      expect(text.startsWith('(...args) => {'), name).toBe(true);
      expect(text, name).not.toMatch(/^\s*(import|export)\s/m);
      expect(text, name).not.toMatch(/\bimport\s*\(|\brequire\s*\(|\b__name\(/);
    }
  });

  test('runs in a blank page: the scan and the page facts answer with their full shapes', async ({ page }) => {
    await page.goto('about:blank');
    const scan = await page.mainFrame().evaluate(injected.scanPage);
    expect(scan).toEqual({
      url: 'about:blank',
      title: '',
      headings: [],
      controls: [],
      buttons: [],
      errors: [],
      bodyText: '',
    });
    const facts = await page.mainFrame().evaluate(injected.pageFacts);
    expect(facts).toEqual({
      url: 'about:blank',
      title: '',
      confirmation: '',
      panel: false,
      panelRef: '',
      pairs: [],
      text: '',
    });
  });

  test('the element scripts run on elements of a plain page', async ({ page }) => {
    await page.setContent(`<label for="a">Town</label><input id="a" value="Leeds">
      <div role="combobox" aria-controls="lb" id="c">Pick</div>
      <div role="listbox" id="lb"><div role="option" data-value="1">One</div><div role="option" aria-disabled="true">Two</div></div>`);
    expect(await page.locator('#a').evaluate(injected.readAndLeave)).toBe('Leeds');
    expect(await page.locator('#a').evaluate(injected.shownValue)).toBe('Leeds');
    expect(await page.locator('#a').evaluate(injected.uniqueSelector)).toBe('#a');
    expect(await page.locator('[role=option]').nth(1).evaluate(injected.uniqueSelector)).toBe(
      '#lb > div:nth-of-type(2)',
    );
    expect(await page.locator('[role=option]').evaluateAll(injected.readOptions)).toEqual([
      { label: 'One', value: '1', disabled: false },
      { label: 'Two', value: '', disabled: true },
    ]);
    expect(await page.locator('#c').evaluate(injected.findListbox, { token: 't1', mark: false })).toBe(true);
    expect(await page.locator('#lb').getAttribute('data-portico-listbox')).toBe('t1');
    const scan = await page.mainFrame().evaluate(injected.scanPage);
    expect(scan.controls.map((c) => [c.type, c.labels])).toEqual([
      ['text', ['Town']],
      ['listbox', []],
    ]);
    // Another control's list still shown (closing) is never taken for a trigger naming none: its own list is waited for.
    await page.setContent(`<div role="combobox" id="d">Pick</div>
      <div role="listbox" id="old" data-portico-listbox="t1"><div role="option">One</div></div>`);
    expect(await page.locator('#d').evaluate(injected.findListbox, { token: 't2', mark: true })).toBe(false);
    expect(await page.locator('#d').evaluate(injected.findListbox, { token: 't2', mark: false })).toBe(false);
    expect(await page.locator('#old').getAttribute('data-portico-listbox')).toBe('t1');
    await page.evaluate(() =>
      document.body.insertAdjacentHTML('beforeend', '<div role="listbox" id="new"><div role="option">Two</div></div>'),
    );
    expect(await page.locator('#d').evaluate(injected.findListbox, { token: 't2', mark: false })).toBe(true);
    expect(await page.locator('#new').getAttribute('data-portico-listbox')).toBe('t2');
  });

  test('where a document is, what a filled control holds, and what a target matched', async ({ page }) => {
    await page.setContent(`<input id="t" name="town" value="Leeds">
      <select id="s" name="size" multiple><option value="s" selected>Small</option><option value="m" selected>Medium</option></select>
      <button id="chip" aria-pressed="true"> Vegan </button>
      <input id="c" type="checkbox" name="ok" checked>`);
    expect(await page.locator('#t').evaluate(injected.frameLocation)).toEqual({
      href: 'about:blank',
      origin: 'null',
      top: true,
    });
    expect(await page.locator('#t').evaluate(injected.controlState)).toEqual({
      name: 'town',
      id: 't',
      value: 'Leeds',
      checked: false,
      selected: [],
    });
    expect(await page.locator('#s').evaluate(injected.controlState)).toMatchObject({ selected: ['s', 'm'] });
    expect(await page.locator('#chip').evaluate(injected.controlState)).toMatchObject({ checked: true, value: '' });
    expect(await page.locator('#c').evaluate(injected.controlState)).toMatchObject({ name: 'ok', checked: true });
    expect(await page.locator('input, button').evaluateAll(injected.describeElements)).toEqual([
      'input "Leeds"',
      'button "Vegan"',
      'input "on"',
    ]);
  });

  test('a control read by its data-portico-id in one evaluate: found once (also in an open shadow root), or counted and not read', async ({
    page,
  }) => {
    await page.setContent(`<input data-portico-id="p1" name="town" value="Leeds">
      <select data-portico-id="p2"><option value="am">AM</option><option value="pm" selected>PM</option></select>
      <div id="host"></div><input data-portico-id="p4"><input data-portico-id="p4">`);
    await page.evaluate(() => {
      const root = document.getElementById('host')?.attachShadow({ mode: 'open' });
      if (root) root.innerHTML = '<input data-portico-id="p3" name="inner" value="Shadow">';
    });
    const read = (pid: string, what: 'readAndLeave' | 'controlState' | 'selectedLabel' | 'segmentReading') =>
      page.mainFrame().evaluate(injected.controlRead, { pid, read: what });
    await page.locator('[data-portico-id="p1"]').focus();
    expect(await read('p1', 'readAndLeave')).toEqual({ found: 1, value: 'Leeds' });
    // readAndLeave leaves the field: it no longer has the focus.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('BODY');
    expect(await read('p2', 'selectedLabel')).toEqual({ found: 1, value: 'PM' });
    // A sectioned time field's AM/PM dropdown, read as a segment.
    expect(await read('p2', 'segmentReading')).toEqual({ found: 1, value: { text: 'PM', now: null, valueText: '' } });
    expect(await read('p2', 'controlState')).toEqual({
      found: 1,
      value: { name: '', id: '', value: 'pm', checked: false, selected: ['pm'] },
    });
    expect(await read('p3', 'controlState')).toMatchObject({ found: 1, value: { name: 'inner', value: 'Shadow' } });
    // None, or several: counted, nothing read (the engine then takes the locator's way).
    expect(await read('p9', 'controlState')).toEqual({ found: 0 });
    expect(await read('p4', 'readAndLeave')).toEqual({ found: 2 });
  });

  test('the reads controlRead makes by data-portico-id answer as the same entries run through a locator', async ({
    page,
  }) => {
    await page.setContent(`<form><label>Town <input data-portico-id="t1" value="Leeds"></label>
      <div role="checkbox" aria-checked="true" data-portico-id="c1" tabindex="0">Agree</div>
      <div><input data-portico-id="g1"><span>Red<button type="button">x</button></span></div>
      <button type="button" role="combobox" aria-controls="lb" data-portico-id="b1">Pick</button>
      <ul role="listbox" id="lb"><li role="option">One</li><li role="option">Two</li></ul></form>`);
    const frame = page.mainFrame();
    const loc = (pid: string) => page.locator(`[data-portico-id="${pid}"]`);
    const read = (args: Parameters<typeof injected.controlRead>[0]) => frame.evaluate(injected.controlRead, args);
    for (const pid of ['t1', 'c1', 'b1']) {
      expect(await read({ pid, read: 'pointerTarget' }), pid).toEqual({
        found: 1,
        value: await loc(pid).evaluate(injected.pointerTarget),
      });
      expect(await read({ pid, read: 'shownValue' }), pid).toEqual({
        found: 1,
        value: await loc(pid).evaluate(injected.shownValue),
      });
    }
    expect(await read({ pid: 'c1', read: 'ariaCheckedState' })).toEqual({ found: 1, value: true });
    expect(await read({ pid: 'g1', read: 'tagChips' })).toEqual({
      found: 1,
      value: await loc('g1').evaluate(injected.tagChips),
    });
    // A tag box's chips, its text and its focus, in one read: what tagChips, inputValue and hasFocus answer.
    await loc('g1').fill('Blue');
    for (const focused of [true, false]) {
      if (!focused) await loc('g1').blur();
      expect(await read({ pid: 'g1', read: 'tagBox' })).toEqual({
        found: 1,
        value: { chips: await loc('g1').evaluate(injected.tagChips), text: 'Blue', focused },
      });
      expect(await loc('g1').evaluate(injected.hasFocus)).toBe(focused);
    }
    // Not a text box: not read here (the locator's inputValue refuses it).
    expect(await read({ pid: 'c1', read: 'tagBox' })).toEqual({ found: 1 });
    // findListbox with its arguments: the list the trigger names is found and its options marked with the token.
    expect(await read({ pid: 'b1', read: 'findListbox', listbox: { token: 'b1', mark: false } })).toEqual({
      found: 1,
      value: true,
    });
    expect(await page.locator('[data-portico-option="b1"]').count()).toBe(2);
    // The Enter guard: on, one Enter in a form's text box stopped and counted, off.
    expect(await read({ pid: 't1', read: 'enterGuard', guard: 'on' })).toEqual({ found: 1, value: 0 });
    await loc('t1').press('Enter');
    expect(await read({ pid: 't1', read: 'enterGuard', guard: 'off' })).toEqual({ found: 1, value: 1 });
  });

  test('the scan as JSON text is the scan as an object; what JSON cannot say (undefined, NaN, ±Infinity) comes back', async ({
    page,
  }) => {
    await page.setContent(`<label for="a">Town</label><input id="a" value="Leeds" maxlength="20">
      <label for="s">Size</label><select id="s"><option>S</option><option selected>M</option></select>
      <input type="range" id="r" min="0" max="10" aria-label="Volume"><button>Send</button>`);
    const asObject = await page.mainFrame().evaluate(injected.scanPage);
    const text = await page.mainFrame().evaluate(injected.scanPageText);
    expect(typeof text).toBe('string');
    expect(injected.fromJsonText(text)).toEqual(asObject);
    expect(asObject.controls.length).toBeGreaterThan(2);
    const odd = injected.fromJsonText<Record<string, unknown>>(
      JSON.stringify({
        a: { __porticoNotJson: 'NaN' },
        b: { __porticoNotJson: 'Infinity' },
        c: { __porticoNotJson: '-Infinity' },
        d: { __porticoNotJson: 'undefined' },
        e: [1, { __porticoNotJson: 'NaN' }],
        f: { __porticoNotJson: 'NaN', other: 1 },
      }),
    );
    expect(odd).toEqual({
      a: Number.NaN,
      b: Number.POSITIVE_INFINITY,
      c: Number.NEGATIVE_INFINITY,
      e: [1, Number.NaN],
      f: { __porticoNotJson: 'NaN', other: 1 },
    });
    expect('d' in odd).toBe(false);
  });

  test("an action's reads and toggles on a plain page", async ({ page }) => {
    await page.setContent(`<p id="p">Hello  there</p><input id="pw" type="password" value="s3cret">
      <select id="s"><option value="tx"> TX -  Texas </option><option value="ca">California</option></select>
      <label><input id="c" type="checkbox"> Agree</label><input id="r" type="radio" name="r" checked>
      <input id="off" type="checkbox" style="position:absolute;left:-9999px">
      <div role="option" aria-label="First" data-value="1">x</div><div role="option">Second  one</div>`);
    expect(await page.locator('#p').evaluate(injected.elementText)).toBe('Hello there');
    expect(await page.locator('#pw').evaluate(injected.elementText)).toBeNull();
    expect(await page.locator('#s').evaluate(injected.elementText)).toBe('tx');
    expect(await page.evaluate(injected.bodyText)).toContain('Hello there');
    expect(await page.locator('#s').evaluate(injected.isNativeSelect)).toBe(true);
    expect(await page.locator('#c').evaluate(injected.isNativeSelect)).toBe(false);
    expect(await page.locator('#s').evaluate(injected.nativeOptions)).toEqual([
      { label: 'TX - Texas', value: 'tx' },
      { label: 'California', value: 'ca' },
    ]);
    expect(await page.locator('[role=option]').evaluateAll(injected.optionNames)).toEqual([
      { label: 'First', value: '1' },
      { label: 'Second one', value: '' },
    ]);
    expect(await page.locator('#c').evaluate(injected.clickToggle)).toBe(true);
    expect(await page.locator('#r').evaluate(injected.clickToggle)).toBe(true);
    expect(await page.locator('#p').evaluate(injected.clickToggle)).toBeNull();
    expect(await page.locator('#c').evaluate(injected.drawnByLabel)).toBe(false);
    expect(await page.locator('#off').evaluate(injected.drawnByLabel)).toBe(true);
    expect(await page.locator('#c').evaluate(injected.toggleByLabel, true)).toBe(true);
    expect(await page.locator('#c').isChecked()).toBe(true);
    const scroll = (d: 'top' | 'bottom') => page.evaluate(injected.scrollPage, d);
    await scroll('bottom');
    await scroll('top');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
  });

  test('after a click: the page changed (a shadow root too) and held still, or changed nothing', async ({ page }) => {
    await page.setContent(`<button id="add" onclick="document.body.append(Object.assign(document.createElement('p'), { textContent: 'Step 2' }))">Next</button>
      <button id="noop">Nothing</button><button id="styled" onclick="this.style.outline = '1px solid red'">Style</button>
      <div id="host"></div><button id="deep" onclick="document.getElementById('host').shadowRoot.firstChild.textContent = 'Saved'">Save</button>
      <script>document.getElementById('host').attachShadow({ mode: 'open' }).append(document.createElement('span'));</script>`);
    const settle = { start: false, firstMs: 200, quietMs: 50, maxMs: 10_000 };
    const around = async (id: string) => {
      await page.evaluate(injected.clickSettled, { ...settle, start: true });
      await page.locator(`#${id}`).click();
      return page.evaluate(injected.clickSettled, settle);
    };
    expect(await around('add')).toMatchObject({ clicked: true, changed: true, quiet: true });
    expect(await around('deep')).toMatchObject({ clicked: true, changed: true, quiet: true });
    // A style change is an animation's, not the page's answer; no change at all ends after firstMs.
    expect(await around('styled')).toMatchObject({ clicked: true, changed: false, quiet: true });
    expect(await around('noop')).toMatchObject({ clicked: true, changed: false, quiet: true });
    // Without a watch started before: from now (after a request's answer), nothing clicked.
    expect(await page.evaluate(injected.clickSettled, settle)).toMatchObject({ clicked: false, changed: false });
  });

  test('after a click: new controls drawn end the wait after two still frames, without the quiet period', async ({
    page,
  }) => {
    // A quiet period of 5 s: an answer with `controls` came from the new controls, not from the quiet period.
    await page.setContent(`<div id="step"><input aria-label="First name"><button id="next">Continue</button></div>
      <button id="text">Note</button><button id="hidden">Hidden</button><button id="shadow">Shadow</button>
      <script>
        const add = (html) => document.body.insertAdjacentHTML('beforeend', html);
        document.getElementById('next').onclick = () => { document.getElementById('step').innerHTML = '<label>Street <input name="street"></label><div role="radio" aria-checked="false">Yes</div>'; };
        document.getElementById('text').onclick = () => add('<p>Saved</p>');
        document.getElementById('hidden').onclick = () => add('<div style="display:none"><input name="h"></div>');
        customElements.define('x-field', class extends HTMLElement { connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = '<input>'; } });
        document.getElementById('shadow').onclick = () => add('<x-field></x-field>');
      </script>`);
    const around = async (id: string, controlsEnd: boolean, quietMs = 5_000) => {
      await page.evaluate(injected.clickSettled, { start: true, firstMs: 0, quietMs: 0, maxMs: 0 });
      await page.locator(`#${id}`).click();
      return page.evaluate(injected.clickSettled, { start: false, firstMs: 200, quietMs, maxMs: 10_000, controlsEnd });
    };
    expect(await around('next', true)).toMatchObject({ changed: true, quiet: true, controls: true });
    expect(await around('shadow', true)).toMatchObject({ changed: true, quiet: true, controls: true });
    // No control among what was added (text; a control not drawn): the quiet period still holds.
    expect(await around('text', true, 50)).toMatchObject({ changed: true, quiet: true, controls: false });
    expect(await around('hidden', true, 50)).toMatchObject({ changed: true, quiet: true, controls: false });
    // Without `controlsEnd` (the watch after a request's answer) new controls wait the quiet period as before.
    expect(await around('shadow', false, 50)).toMatchObject({ changed: true, quiet: true, controls: false });
  });

  test('after a submit: a confirmation drawn ends the wait after two still frames; its tail says whether the page changed after', async ({
    page,
  }) => {
    // A quiet period of 5 s: an answer with `confirmed` came from the confirmation, not from the quiet period.
    await page.setContent(`<div id="out"></div><button id="ok">Send</button><button id="shadow">Send here</button>
      <button id="hidden">Send hidden</button><button id="draft">Save</button>
      <script>
        const out = document.getElementById('out');
        document.getElementById('ok').onclick = () => { out.innerHTML = '<h1>Application submitted</h1><p>Your reference is A-1</p>'; };
        customElements.define('x-done', class extends HTMLElement { connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = '<p>Thank you</p>'; } });
        document.getElementById('shadow').onclick = () => { out.innerHTML = '<x-done></x-done>'; };
        document.getElementById('hidden').onclick = () => { out.innerHTML = '<p style="display:none">Thank you</p>'; };
        document.getElementById('draft').onclick = () => { out.textContent = 'Saved as a draft'; };
      </script>`);
    const confirmed = 'thank you|application submitted';
    const around = async (id: string, quietMs = 5_000) => {
      await page.evaluate(injected.clickSettled, { start: true, firstMs: 0, quietMs: 0, maxMs: 0 });
      await page.locator(`#${id}`).click();
      return page.evaluate(injected.clickSettled, { start: false, firstMs: 200, quietMs, maxMs: 10_000, confirmed });
    };
    const tail = () =>
      page.evaluate(injected.clickSettled, { start: false, firstMs: 0, quietMs: 50, maxMs: 10_000, tail: true });
    expect(await around('ok')).toMatchObject({ changed: true, quiet: true, confirmed: true });
    expect(await tail()).toMatchObject({ changed: false, quiet: true });
    expect(await around('shadow')).toMatchObject({ changed: true, quiet: true, confirmed: true });
    // An error drawn after the confirmation was answered: the tail says so (the page read meanwhile is read again).
    await page.evaluate(() =>
      document.getElementById('out')?.insertAdjacentHTML('beforeend', '<p role="alert">Not saved</p>'),
    );
    expect(await tail()).toMatchObject({ changed: true, quiet: true });
    // Confirmation text not drawn, or other text: the quiet period holds, and no tail is kept.
    expect(await around('hidden', 50)).toMatchObject({ changed: true, quiet: true, confirmed: false });
    expect(await around('draft', 50)).toMatchObject({ changed: true, quiet: true, confirmed: false });
    expect(await tail()).toMatchObject({ changed: true, quiet: false });
  });

  test("after a click: the quiet period ends at its own time, not at the next animation frame (the page's clock)", async ({
    page,
  }) => {
    await page.clock.install();
    await page.setContent(`<button id="add" onclick="document.body.append(document.createElement('p'))">Add</button>`);
    await page.clock.pauseAt(Date.now() + 60_000);
    for (const quietMs of [41, 50]) {
      await page.evaluate(injected.clickSettled, { start: true, firstMs: 0, quietMs: 0, maxMs: 0 });
      await page.locator('#add').dispatchEvent('click');
      const settled = page.evaluate(injected.clickSettled, { start: false, firstMs: 500, quietMs, maxMs: 2_000 });
      await page.clock.runFor(200);
      // Frames come every 16 ms of the page's clock: both periods end on time only when not waiting for a frame.
      expect(await settled).toMatchObject({ changed: true, quiet: true, ms: quietMs });
    }
  });

  test("after a request's answer: the click's watch, kept, counts from the answer's arrival, so an answer drawn before the call is not waited for", async ({
    page,
  }) => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('http://portico.test/**', async (route) => {
      if (route.request().url().endsWith('/answer')) {
        await held;
        return route.fulfill({ status: 200, contentType: 'application/json', body: '{}' });
      }
      return route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: `<p id="st"></p><div id="out"></div><button id="send">Book</button><script>
          document.getElementById('send').onclick = async () => {
            document.getElementById('st').textContent = 'Sending…';
            await (await fetch('/answer', { method: 'POST', body: '{}' })).json();
            document.getElementById('out').innerHTML = '<h2>Booking confirmed</h2>';
          };</script>`,
      });
    });
    await page.goto('http://portico.test/');
    await page.evaluate(injected.clickSettled, { start: true, firstMs: 0, quietMs: 0, maxMs: 0 });
    await page.locator('#send').click();
    const click = { start: false, firstMs: 500, quietMs: 50, maxMs: 10_000 };
    expect(await page.evaluate(injected.clickSettled, { ...click, keep: true })).toMatchObject({ changed: true });
    release();
    await page.locator('h2').waitFor();
    // A first change waited for 5 s: an answer with `changed` came from the change the answer made before the call.
    const answered = { ...click, firstMs: 5_000, answered: ['http://portico.test/answer'] };
    expect(await page.evaluate(injected.clickSettled, answered)).toMatchObject({ changed: true, quiet: true });
    // No watch kept (it was taken): counted from the call, as a change still to come.
    expect(await page.evaluate(injected.clickSettled, { ...answered, firstMs: 200 })).toMatchObject({ changed: false });
  });

  test('what a pointer at a control reaches: itself, its own label drawn over it, or something else', async ({
    page,
  }) => {
    await page.setContent(`<style>.c{position:relative;display:inline-block}.c input{position:absolute;opacity:0;z-index:-1;margin:0}
      .c span{display:inline-block;width:16px;height:16px;border:1px solid}</style>
      <label class="c"><input id="drawn" type="checkbox"><span></span> Breakfast</label>
      <label><input id="plain" type="checkbox"> Dinner</label><button id="off" disabled>Off</button>
      <div style="position:relative"><button id="under">Under</button><div style="position:absolute;inset:0;background:#fff"></div></div>
      <div style="position:relative"><span>Pick a plan</span><div style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);top:0">
        <input id="sr" style="width:120px"></div></div>
      <div style="height:3000px"></div><button id="far">Far</button>`);
    const reach = (id: string) => page.locator(`#${id}`).evaluate(injected.pointerTarget);
    expect(await reach('drawn')).toBe('label');
    expect(await reach('plain')).toBe('self');
    expect(await reach('off')).toBe('other');
    expect(await reach('under')).toBe('other');
    // Visually hidden (inside a clipped pixel box, or a pixel itself) under something else: no wait uncovers it.
    expect(await reach('sr')).toBe('hidden');
    // Below the fold: brought into view first, as a click would be.
    expect(await reach('far')).toBe('self');
  });

  test("a web component's own button showing its host's slotted text or element is reached (Shoelace's radio buttons)", async ({
    page,
  }) => {
    // The control is the button in the shadow root; what the pointer hits at its centre is the host's light-DOM
    // content slotted into it: the shadow root's hit test answers the host (for text) or that element.
    await page.setContent(`<script>
      customElements.define('x-choice', class extends HTMLElement {
        constructor() {
          super();
          this.attachShadow({ mode: 'open' }).innerHTML =
            '<button role="radio" aria-checked="false" style="font-size:20px;padding:0 2px"><slot></slot></button>';
        }
      });
    </script><x-choice id="text">In person</x-choice> <x-choice id="el"><b>Online</b></x-choice>
    <div style="position:relative"><x-choice id="covered">Hybrid</x-choice><div style="position:absolute;inset:0;background:#fff"></div></div>`);
    // Playwright's CSS engine reaches into the open shadow root.
    const reach = (id: string) => page.locator(`#${id} button`).evaluate(injected.pointerTarget);
    expect(await reach('text')).toBe('self');
    expect(await reach('el')).toBe('self');
    // Something drawn over the component is still something else.
    expect(await reach('covered')).toBe('other');
  });

  test("the ARIA filler's reads and marks on a plain page", async ({ page }) => {
    await page.setContent(`<div role="switch" id="sw" aria-checked="true">On</div><button id="tb" aria-pressed="false">B</button>
      <div id="pop"><input id="filter"><div role="listbox" id="lb" aria-multiselectable="true">
        <div role="option" aria-selected="true">A</div><div role="option" aria-checked="false">B</div></div></div>
      <div role="listbox" id="old"><div role="option">X</div></div>
      <div role="tree"><div role="treeitem" aria-expanded="true" id="eu">Europe<div role="group">
        <div role="treeitem" id="fr">France <span>(FR)</span></div><div role="treeitem" aria-label="Spain">ES</div></div></div></div>`);
    expect(await page.locator('#sw').evaluate(injected.ariaCheckedState)).toBe(true);
    expect(await page.locator('#tb').evaluate(injected.ariaCheckedState)).toBe(false);
    const trigger = await page.locator('#sw').elementHandle();
    expect(await page.locator('#lb').evaluate(injected.markFilterBox, { token: 't1', trigger })).toBe(true);
    expect(await page.locator('#filter').getAttribute('data-portico-filter')).toBe('t1');
    expect(await page.locator('#lb').evaluate(injected.listTakesMany)).toBe(true);
    expect(await page.locator('#old').evaluate(injected.listTakesMany)).toBe(false);
    expect(await page.locator('#lb [role=option]').evaluateAll(injected.optionsCheckable)).toBe(true);
    expect(await page.locator('#lb [role=option]').evaluateAll(injected.optionStates)).toEqual([true, false]);
    await page.evaluate(injected.markListsBefore, 't2');
    expect(await page.locator('#old').getAttribute('data-portico-before')).toBe('t2');
    await page.evaluate(() => {
      document.body.insertAdjacentHTML(
        'beforeend',
        '<ul role="listbox" id="cascade"><li>Europe <ul role="listbox" hidden><li>France</li></ul></li><li>Asia</li></ul>',
      );
    });
    expect(await page.evaluate(injected.markCascadeList, 't2')).toBe(true);
    expect(await page.locator('#cascade').getAttribute('data-portico-cascade')).toBe('t2');
    expect(await page.locator('#cascade > li').evaluateAll(injected.cascadeLabels)).toEqual(['Europe', 'Asia']);
    const items = page.locator('[role=treeitem]');
    expect(await items.evaluateAll(injected.nextTreeItem, 't3')).toBe(1);
    await items.nth(1).evaluate(injected.markTried, 't3');
    expect(await items.evaluateAll(injected.nextTreeItem, 't3')).toBe(2);
    expect(await items.evaluateAll(injected.treeNodes)).toEqual([
      { label: 'Europe', value: 'Europe', ancestors: [] },
      { label: 'France (FR)', value: 'France (FR)', ancestors: ['Europe'] },
      { label: 'Spain', value: 'Spain', ancestors: ['Europe'] },
    ]);
  });
});

const GROUPS_PAGE = `
<form id="f">
  <div id="g-name">
    <div id="w-name"><label for="name">Full name</label><input id="name" name="name"></div>
    <span class="error-message" id="name-error">Enter your full name</span>
  </div>
  <div id="g-email">
    <div id="w-email"><label for="email">Email</label><input id="email" name="email"></div>
  </div>
  <div id="g-dob">
    <div id="w-day"><input id="dob-day" name="dob-day"></div>
    <div id="w-month"><input id="dob-month" name="dob-month"></div>
  </div>
  <div id="d1"><div id="d2"><div id="d3"><div id="d4"><div id="d5"><div id="d6"><input id="deep"></div></div></div></div></div></div>
  <div id="host-wrap"><div id="host"></div></div>
</form>
<script>
  const root = document.getElementById('host').attachShadow({ mode: 'open' });
  root.innerHTML = '<div id="in-shadow"><input id="shadowed"></div>';
</script>`;

interface DomHelpers {
  ownGroup(
    el: Element,
    options: {
      fields: string;
      maxDepth: number;
      acrossShadow?: boolean;
      sameField?: (o: Element) => boolean;
      stopAt?: (n: Element) => boolean;
    },
  ): Element | null;
  ownGroupAncestors(
    el: Element,
    options: { fields: string; maxDepth: number; acrossShadow?: boolean },
  ): Iterable<Element>;
  NATIVE_FIELDS: string;
}

describe("the shared DOM helpers: a field's own group", () => {
  test.beforeEach(async ({ page }) => {
    await page.setContent(GROUPS_PAGE);
    await page.addScriptTag({ content: await bundleScript('dom.ts', '__porticoDom', 'named') });
  });

  /** The ids of the field's own group ancestors, innermost first, as the page computes them. */
  async function chain(
    page: Page,
    selector: string,
    options: { maxDepth: number; acrossShadow?: boolean; stem?: boolean; stopAtLabel?: boolean },
  ): Promise<string[]> {
    return page.evaluate(
      ({ selector, options }) => {
        const dom = (window as unknown as { __porticoDom: DomHelpers }).__porticoDom;
        const host = document.getElementById('host')?.shadowRoot;
        const el = document.querySelector(selector) ?? host?.querySelector(selector);
        if (!el) throw new Error(`no ${selector}`);
        const stem = (n: string): string => n.replace(/-(day|month|year)$/, '');
        const name = (el as HTMLInputElement).name;
        const walk = {
          fields: dom.NATIVE_FIELDS,
          maxDepth: options.maxDepth,
          ...(options.acrossShadow === false ? { acrossShadow: false } : {}),
          ...(options.stem ? { sameField: (o: Element) => stem((o as HTMLInputElement).name) === stem(name) } : {}),
          ...(options.stopAtLabel ? { stopAt: (n: Element) => !!n.querySelector('label') } : {}),
        };
        const ids = Array.from(dom.ownGroupAncestors(el, walk)).map((a) => a.id);
        const largest = dom.ownGroup(el, walk);
        if ((largest?.id ?? undefined) !== ids.at(-1)) throw new Error('ownGroup is not the last of ownGroupAncestors');
        return ids;
      },
      { selector, options },
    );
  }

  test('climbs while an ancestor holds no other field, and never takes the form', async ({ page }) => {
    expect(await chain(page, '#name', { maxDepth: 4 })).toEqual(['w-name', 'g-name']);
    expect(await chain(page, '#email', { maxDepth: 4 })).toEqual(['w-email', 'g-email']);
  });

  test('stops below an ancestor holding a neighbour; parts of a split date count as one field when asked', async ({
    page,
  }) => {
    expect(await chain(page, '#dob-day', { maxDepth: 4 })).toEqual(['w-day']);
    expect(await chain(page, '#dob-day', { maxDepth: 4, stem: true })).toEqual(['w-day', 'g-dob']);
  });

  test('climbs at most maxDepth levels and stops before an ancestor the caller refuses', async ({ page }) => {
    expect(await chain(page, '#deep', { maxDepth: 4 })).toEqual(['d6', 'd5', 'd4', 'd3']);
    expect(await chain(page, '#deep', { maxDepth: 2 })).toEqual(['d6', 'd5']);
    expect(await chain(page, '#name', { maxDepth: 4, stopAtLabel: true })).toEqual([]);
  });

  test('climbs out of a shadow root to its host unless told to stay in the tree', async ({ page }) => {
    expect(await chain(page, '#shadowed', { maxDepth: 4 })).toEqual(['in-shadow', 'host', 'host-wrap']);
    expect(await chain(page, '#shadowed', { maxDepth: 4, acrossShadow: false })).toEqual(['in-shadow']);
  });

  test('the scan blames an error message on the field whose group shows it, not on its neighbour', async ({ page }) => {
    const scan = await page.mainFrame().evaluate(injected.scanPage);
    const errorOf = (id: string): string | undefined => scan.controls.find((c) => c.id === id)?.errorText;
    expect(errorOf('name')).toBe('Enter your full name');
    expect(errorOf('email')).toBe('');
  });
});
