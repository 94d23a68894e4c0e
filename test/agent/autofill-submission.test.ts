import { createHash } from 'node:crypto';

import type { ServerResponse } from 'node:http';

import type { Frame, Page } from 'playwright-core';

import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import type { SubmissionReceipt } from '../../src-main/agent/agentTypes.ts';
import { page as htmlPage, type Handler } from '../helpers/formServer.ts';
import { describe, expect } from '../helpers/fixtures.ts';
import { autofillTest } from './autofillTest.ts';
import { fakeContext, type FakeContext, type FakeOptions } from './fakeContext.ts';

const html =
  (body: string, title = 'Form'): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(htmlPage(body, title));
  };
const json =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
const sha256 = (bytes: Buffer | undefined): string =>
  createHash('sha256')
    .update(bytes ?? Buffer.alloc(0))
    .digest('hex');

/** A phone mask applied only when the form is sent: it keeps the first ten digits, so a leading country code shifts them. */
const SUBMIT_MASK = `<script>
  document.querySelector('form').addEventListener('submit', () => {
    const m = document.getElementById('mobile');
    const d = m.value.replace(/\\D/g, '').slice(0, 10);
    m.value = '(' + d.slice(0, 3) + ') ' + d.slice(3, 6) + '-' + d.slice(6);
  });
</script>`;

/** A live mask on the control: (ddd) ddd-dddd from the first `keep` digits typed. */
const liveMask = (keep: number): string => `<script>
  const m = document.getElementById('mobile');
  m.addEventListener('input', () => {
    const d = m.value.replace(/\\D/g, '').slice(0, ${keep});
    m.value = d.length > 6 ? '(' + d.slice(0, 3) + ') ' + d.slice(3, 6) + '-' + d.slice(6) : d;
  });
</script>`;

/** A one-time-code page: six one-character boxes in a labelled group, box i named `name(i)`. */
const otpPage = (action: string, name: (i: number) => string): string =>
  `<h1>Verify your phone</h1><form method="post" action="${action}">
  <span id="otp-label">Verification code</span>
  <div role="group" aria-labelledby="otp-label">${[1, 2, 3, 4, 5, 6]
    .map((i) => `<input type="text" inputmode="numeric" maxlength="1" autocomplete="one-time-code" name="${name(i)}">`)
    .join('')}</div>
  <button type="submit">Verify</button></form>`;

/**
 * A booking form whose POST is answered 200 at once but whose confirmation shows only when the page server says so
 * (an event stream `confirmLater.release()` ends): meanwhile the form and its button stay on screen. `variant`:
 * 'same' (nothing changes), 'disabled' (the button is disabled until the confirmation), 'redrawn' (the form is drawn
 * again — new elements, the values kept — once the POST is answered).
 */
const confirmLater = {
  streams: [] as ServerResponse[],
  /** Every waiting page is told its booking is confirmed. */
  release(): void {
    for (const res of confirmLater.streams.splice(0)) res.end('data: confirmed\n\n');
  },
};
const confirmLaterPage = (variant: 'same' | 'disabled' | 'redrawn', name: string = variant): Handler =>
  html(`<h1>Book a session</h1><form id="f"><div id="fields"></div><span id="btn"></span></form><div id="out"></div>
    <script>
      const value = (id) => document.getElementById(id)?.value ?? '';
      const draw = (disabled) => {
        const [a, b] = [value('a'), value('b')];
        document.getElementById('fields').innerHTML = '<label for="a">Full name</label><input id="a" name="a"><label for="b">Email address</label><input id="b" name="b" type="email">';
        document.getElementById('a').value = a;
        document.getElementById('b').value = b;
        document.getElementById('btn').innerHTML = '<button type="submit"' + (disabled ? ' disabled' : '') + '>Book session</button>';
      };
      draw(false);
      document.getElementById('f').addEventListener('submit', async (e) => {
        e.preventDefault();
        const body = JSON.stringify({ name: value('a'), email: value('b') });
        if ('${variant}' === 'disabled') draw(true);
        const r = await fetch('/api/confirm-later/${name}', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        if (!r.ok) return;
        if ('${variant}' === 'redrawn') draw(false);
        const events = new EventSource('/api/confirm-later-events');
        events.onmessage = () => {
          events.close();
          document.getElementById('f').remove();
          document.getElementById('out').innerHTML = '<h2>Booking confirmed</h2><p>Your reference is B-1</p>';
        };
      });
    </script>`);

/** A booking form that, once its POST is answered 200, draws `shown` and then, 40 ms later, an error. */
const lateErrorPage = (name: string, shown: string): Handler =>
  html(`<h1>Book a table</h1><form id="f"><label for="nm">Your name</label><input id="nm" name="nm">
    <button type="submit">Book</button></form><div id="out"></div>
    <script>
      document.getElementById('f').addEventListener('submit', async (e) => {
        e.preventDefault();
        const body = JSON.stringify({ name: document.getElementById('nm').value });
        await fetch('/api/late-error/${name}', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        document.getElementById('f').remove();
        const out = document.getElementById('out');
        out.innerHTML = '${shown}';
        setTimeout(() => out.insertAdjacentHTML('beforeend', '<p role="alert">Sorry, the booking could not be saved</p>'), 40);
      });
    </script>`);

/**
 * Answered 200, a confirmation with a button, and an error drawn as soon as the filler's scan marks that button:
 * drawn after the page was read, within its quiet period. `busy` runs in the page once the answer came.
 */
const lateErrorReadPage = (name: string, busy: string): Handler =>
  html(`<h1>Book a table</h1><form id="f"><label for="nm">Your name</label><input id="nm" name="nm">
    <button type="submit">Book</button></form><div id="out"></div>
    <script>
      document.getElementById('f').addEventListener('submit', async (e) => {
        e.preventDefault();
        const body = JSON.stringify({ name: document.getElementById('nm').value });
        await (await fetch('/api/late-error/${name}', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
        ${busy}
        document.getElementById('f').remove();
        const out = document.getElementById('out');
        out.innerHTML = '<h2>Thank you, your booking has been received</h2><button type="button" id="receipt">Download receipt</button>';
        new MutationObserver((_, observer) => {
          observer.disconnect();
          out.insertAdjacentHTML('beforeend', '<p role="alert">Sorry, the booking could not be saved</p>');
        }).observe(document.getElementById('receipt'), { attributes: true });
      });
    </script>`);

function pages(): Record<string, Handler> {
  return {
    '/masked': html(`<h1>Contact</h1><form method="post" action="/submit/masked">
      <label for="mobile">Mobile phone</label><input id="mobile" name="mobile" type="tel">
      <button type="submit">Send</button></form>${liveMask(10)}`),
    '/masked-short': html(`<h1>Contact</h1><form method="post" action="/submit/masked-short">
      <label for="mobile">Mobile phone</label><input id="mobile" name="mobile" type="tel">
      <button type="submit">Send</button></form>${liveMask(9)}`),
    '/linked/start': html(
      '<h1>Apply for a fishing licence</h1><p>Read the guidance first.</p><p><a href="/linked/form">Open the application</a></p>',
      'Fishing licences',
    ),
    '/linked/form': html(
      `<h1>Your details</h1><form method="post" action="/submit/linked">
      <label for="fn">Full name</label><input id="fn" name="fn" required>
      <label for="em">Email address</label><input id="em" name="em" type="email" required>
      <button type="submit">Submit application</button></form>`,
      'Your details',
    ),
    '/thanks-js': html(`<h1>Newsletter</h1><div id="f"><label for="nm">Your name</label><input id="nm" name="nm">
      <button type="button" id="go">Submit</button></div>
      <script>document.getElementById('go').onclick = () => { document.getElementById('f').outerHTML = '<p>Thank you, your application has been received.</p>'; };</script>`),
    '/phone': html(`<h1>Contact</h1><form method="post" action="/submit/phone">
      <label for="mobile">Mobile phone</label><input id="mobile" name="mobile" type="tel">
      <button type="submit">Send</button></form>${SUBMIT_MASK}`),
    '/state': html(`<h1>Where do you live?</h1><form method="post" action="/submit/state">
      <label for="st">State</label><select id="st" name="state"><option value="">Choose…</option><option value="TN">Tennessee</option><option value="TX">Texas</option><option value="UT">Utah</option></select>
      <button type="submit">Send</button></form>`),
    '/state-rewrite': html(`<h1>Where do you live?</h1><form method="post" action="/submit/state-rewrite">
      <label for="st">State</label><select id="st" name="state"><option value="">Choose…</option><option value="TN">Tennessee</option><option value="TX">Texas</option><option value="UT">Utah</option></select>
      <button type="submit">Send</button></form>
      <script>document.querySelector('form').addEventListener('submit', () => { document.getElementById('st').value = 'TN'; });</script>`),
    '/fetch-json': html(`<h1>Register</h1><form id="f"><label for="a">Full name</label><input id="a">
      <label for="b">Email address</label><input id="b" type="email">
      <label for="c">Start date</label><input id="c" type="date">
      <button type="submit">Register</button></form><div id="out"></div>
      <script>document.getElementById('f').addEventListener('submit', async (e) => {
        e.preventDefault();
        const body = { applicant: { name: document.getElementById('a').value, contact: { email: document.getElementById('b').value } }, start: document.getElementById('c').value };
        const r = await fetch('/api/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const data = await r.json();
        document.getElementById('f').remove();
        document.getElementById('out').innerHTML = '<h2>Thank you</h2><p>Your reference is ' + data.reference + '</p>';
      });</script>`),
    '/api/register': json(201, { reference: 'REG-4411' }),
    '/graphql-form': html(`<h1>Join</h1><form id="f"><label for="a">Full name</label><input id="a">
      <label for="b">Email address</label><input id="b" type="email">
      <button type="submit">Join</button></form><div id="out"></div>
      <script>document.getElementById('f').addEventListener('submit', async (e) => {
        e.preventDefault();
        const query = 'mutation Join($input: JoinInput!) { join(input: $input) { id } }';
        const r = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { input: { fullName: document.getElementById('a').value, email: document.getElementById('b').value } } }) });
        const data = await r.json();
        document.getElementById('f').remove();
        document.getElementById('out').innerHTML = '<h2>Thank you</h2><p>Membership number: ' + data.data.join.id + '</p>';
      });</script>`),
    '/graphql': json(200, { data: { join: { id: 'M-77' } } }),
    '/upload': html(`<h1>Upload evidence</h1><form method="post" action="/submit/upload" enctype="multipart/form-data">
      <label for="nm">Full name</label><input id="nm" name="applicant_name">
      <label for="doc">Proof of address</label><input id="doc" name="proof" type="file">
      <button type="submit">Send evidence</button></form>`),
    '/search': html(`<h1>Find a course</h1><form method="get" action="/results">
      <label for="q">Course name</label><input id="q" name="q">
      <label for="loc">Town</label><input id="loc" name="town">
      <button type="submit">Find courses</button></form>`),
    '/results': html('<h1>Search results</h1><p>Thank you, we have received your search.</p>', 'Results'),
    '/beacon': html(`<h1>Comments</h1><div id="f"><label for="a">Full name</label><input id="a">
      <label for="b">Email address</label><input id="b" type="email">
      <button type="button" id="go">Send my comments</button></div>
      <script>document.getElementById('go').onclick = () => {
        navigator.sendBeacon('/api/beacon', new URLSearchParams({ who: document.getElementById('a').value, mail: document.getElementById('b').value }));
        document.getElementById('f').outerHTML = '<p>Thank you, your feedback has been received.</p>';
      };</script>`),
    '/api/beacon': (_req, res) => {
      res.writeHead(204).end();
    },
    // A one-time code in six one-character boxes, each box its own field of the form.
    '/otp': html(otpPage('/submit/otp', (i) => `otp${i}`)),
    '/otp-list': html(otpPage('/submit/otp-list', () => 'code[]')),
    // The page swaps the last two characters when the form is sent: the request carries another code.
    '/otp-rewrite': html(
      `${otpPage('/submit/otp-rewrite', (i) => `otp${i}`)}<script>document.querySelector('form').addEventListener('submit', () => {
        const [a, b] = [document.querySelector('[name=otp5]'), document.querySelector('[name=otp6]')];
        [a.value, b.value] = [b.value, a.value];
      });</script>`,
    ),
    // A form that clears itself for another entry once the site answered (its inputs drawn again, empty).
    '/reset-after':
      html(`<h1>Book a callback</h1><form id="f"><div id="fields"></div><button type="submit">Book callback</button></form>
      <p id="said" role="status"></p>
      <script>
        const draw = () => { document.getElementById('fields').innerHTML = '<label for="a">Full name</label><input id="a" name="a"><label for="b">Phone number</label><input id="b" name="b" type="tel">'; };
        draw();
        document.getElementById('f').addEventListener('submit', async (e) => {
          e.preventDefault();
          const r = await fetch('/api/reset-after', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: document.getElementById('a').value, phone: document.getElementById('b').value }) });
          if (r.ok) { draw(); document.getElementById('said').textContent = 'Booked. You can book another callback.'; }
        });
      </script>`),
    '/api/reset-after': json(200, { ok: true }),
    // The React-style form of the corpus: a fetch sent by the click, the form replaced by a confirmation once answered.
    '/late-form': html(`<h1>Join the club</h1><form id="f"><label for="a">Full name</label><input id="a">
      <label for="b">Email address</label><input id="b" type="email">
      <button type="submit">Join now</button></form><div id="out"></div>
      <script>document.getElementById('f').addEventListener('submit', async (e) => {
        e.preventDefault();
        const r = await fetch('/api/late', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: document.getElementById('a').value, email: document.getElementById('b').value }) });
        if (!r.ok) return;
        document.getElementById('f').remove();
        document.getElementById('out').innerHTML = '<h2>Application submitted</h2><p>Your reference number is J-1</p>';
      });</script>`),
    '/api/late': json(200, { reference: 'J-1' }),
    // A text box drawn again (a new element, the value carried over) on its first input, as a keyed re-render does.
    '/redrawn':
      html(`<h1>Contact</h1><form method="post" action="/submit/redrawn"><div id="w"><label for="nm">Full name</label><input id="nm" name="nm"></div>
      <button type="submit">Send</button></form>
      <script>
        const w = document.getElementById('w');
        let drawn = false;
        w.addEventListener('input', (e) => {
          if (drawn) return;
          drawn = true;
          const value = e.target.value;
          w.innerHTML = '<label for="nm">Full name</label><input id="nm" name="nm">';
          w.querySelector('input').value = value;
        });
      </script>`),
    // A submit button drawn again (a new element) the first time the pointer comes over it, as a hover state keyed on the element does.
    '/redrawn-button':
      html(`<h1>Contact</h1><form method="post" action="/submit/redrawn-button"><label for="nm">Full name</label><input id="nm" name="nm">
      <span id="b"><button type="submit">Send</button></span></form>
      <script>
        const b = document.getElementById('b');
        b.addEventListener('mouseover', () => { if (!b.dataset.drawn) { b.dataset.drawn = '1'; b.innerHTML = '<button type="submit">Send</button>'; } });
      </script>`),
    '/confirm-later/same': confirmLaterPage('same'),
    '/confirm-later/disabled': confirmLaterPage('disabled'),
    '/confirm-later/redrawn': confirmLaterPage('redrawn'),
    '/confirm-later/redrawn-late': confirmLaterPage('redrawn', 'redrawn-late'),
    '/api/confirm-later/*': (req, res, post, server) => {
      // A second booking is the harm: the page is confirmed at once then, so the test sees it and ends.
      if (post && server.postsTo(post.path).length > 1) confirmLater.release();
      json(200, { ok: true })(req, res, post, server);
    },
    '/api/confirm-later-events': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(': waiting\n\n');
      confirmLater.streams.push(res);
    },
    // Answered 200, then what the page draws: a confirmation or a status line, and 40 ms later an error (a late
    // server-side check). Read before the error, either would end the run as submitted.
    '/late-error/thanks': lateErrorPage('thanks', '<h2>Thank you, your booking has been received</h2>'),
    '/late-error/status': lateErrorPage('status', '<p>Processing your booking</p>'),
    // Answered 200, a confirmation with a button, and an error drawn as soon as the filler's scan marks that button:
    // drawn after the page was read, within its quiet period (the confirmation's tail sees it; before the tail, the
    // page was read after the quiet period and the error came after that read: completed).
    '/late-error/read': lateErrorReadPage('read', ''),
    // The same, on a page whose frames take 40 ms each once it is answered (a loaded machine, a busy page): the
    // click's quiet period passes before its two still frames do, and the confirmation's tail is checked all the same.
    '/late-error/slow-frames': lateErrorReadPage(
      'slow-frames',
      'const spin = () => { const t = performance.now(); while (performance.now() - t < 40); requestAnimationFrame(spin); }; requestAnimationFrame(spin);',
    ),
    '/api/late-error/read': json(200, { ok: true }),
    '/api/late-error/slow-frames': json(200, { ok: true }),
    '/api/late-error/thanks': json(200, { ok: true }),
    '/api/late-error/status': json(200, { ok: true }),
    '/plain': html(`<h1>Apply</h1><form method="post" action="/submit/plain">
      <label for="nm">Full name</label><input id="nm" name="full_name">
      <label for="pw">Password</label><input id="pw" name="pw" type="password">
      <button type="submit">Apply</button></form>`),
  };
}

// One page for the file (each job opens its own URL on it; autofillTest): a context per test cost ~40 % more CPU.
const test = autofillTest(pages());

describe('AutofillAgent — completed means a submission was seen, and what is sent is checked first', () => {
  const context = (page: Page, options: Omit<FakeOptions, 'page'> & { task?: string }): FakeContext => {
    const ctx = fakeContext({ page, ...options });
    if (options.task) ctx.task = options.task;
    return ctx;
  };
  const receiptOf = (result: Record<string, unknown>): SubmissionReceipt => result.receipt as SubmissionReceipt;
  const linkedSchema = {
    type: 'object',
    required: ['full_name', 'email'],
    properties: { full_name: { type: 'string' }, email: { type: 'string' } },
  };

  test('follows the link the task names to the form, fills it and completes with the values sent', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, {
      startUrl: forms.url('/linked/start'),
      formData: { full_name: 'Ada Lovelace', email: 'ada@example.org' },
      formSchema: linkedSchema,
      task: "Click the 'Open the application' link, then fill in and submit the form",
    });
    // The submission watch's routing is taken off while the final page is read and recorded, and is off before the
    // run returns: held here until the final step is recorded, it must still be done when the run resolves.
    const unroute = page.unroute.bind(page);
    let release = (): void => undefined;
    const finalStep = new Promise<void>((resolve) => {
      release = resolve;
    });
    let unrouted = 0;
    page.unroute = (async (...args: Parameters<Page['unroute']>) => {
      await finalStep;
      await unroute(...args);
      unrouted += 1;
    }) as Page['unroute'];
    const recordStep = ctx.recordStep.bind(ctx);
    ctx.recordStep = async (description) => {
      await recordStep(description);
      if (description.startsWith('Final page')) release();
    };
    const { result } = await new AutofillAgent().run(ctx).finally(() => {
      release();
      page.unroute = unroute;
    });
    expect(unrouted, ctx.logs.join('\n')).toBe(1);
    expect(forms.postsTo('/submit/linked').map((p) => p.fields)).toEqual([
      { fn: 'Ada Lovelace', em: 'ada@example.org' },
    ]);
    expect(result).toMatchObject({
      submitted: true,
      placements: { full_name: { value: 'Ada Lovelace' }, email: { value: 'ada@example.org' } },
      unplaced: [],
    });
    expect(receiptOf(result)).toMatchObject({
      method: 'POST',
      url: forms.url('/submit/linked'),
      response_status: 200,
      verified: ['full_name', 'email'],
      unverified: [],
    });
    expect(ctx.steps[0]?.description).toContain("Click the 'Open the application' link");
  });

  test('never completes when the form is a link away and the task does not name the link', async ({
    formPage: page,
    forms,
  }) => {
    const before = forms.postsTo('/submit/linked').length;
    const ctx = context(page, {
      startUrl: forms.url('/linked/start'),
      formData: { full_name: 'Ada Lovelace', email: 'ada@example.org' },
      formSchema: linkedSchema,
    });
    await expect(new AutofillAgent().run(ctx)).rejects.toThrow(
      /Not submitted: no control on the pages it reached took a value \(form_data keys full_name, email\); the last page, 'Fishing licences', has no field/,
    );
    // With a human: asked, and Cancel fails the job.
    const asked = context(page, {
      startUrl: forms.url('/linked/start'),
      formData: { full_name: 'Ada Lovelace', email: 'ada@example.org' },
      formSchema: linkedSchema,
      answers: ['Cancel'],
    });
    await expect(new AutofillAgent().run(asked)).rejects.toThrow(/Not submitted \(cancelled by a human\)/);
    expect(asked.questions[0]).toMatchObject({
      question: expect.stringContaining('Portico did not see the form submitted'),
      options: ['Continue', 'Cancel'],
    });
    expect(forms.postsTo('/submit/linked')).toHaveLength(before);
  });

  test('with a human, Continue goes on from the page the human brought on screen (the live view), and completes once the form is sent', async ({
    formPage: page,
    forms,
  }) => {
    const before = forms.postsTo('/submit/linked').length;
    const ctx = context(page, {
      startUrl: forms.url('/linked/start'),
      formData: { full_name: 'Grace Hopper', email: 'grace@example.org' },
      formSchema: linkedSchema,
      answers: ['Continue'],
    });
    const scripted = ctx.ask.bind(ctx);
    ctx.ask = async (question) => {
      await page.goto(forms.url('/linked/form'));
      return scripted(question);
    };
    const { result } = await new AutofillAgent().run(ctx);
    expect(ctx.questions.map((q) => q.options)).toEqual([['Continue', 'Cancel']]);
    expect(
      forms
        .postsTo('/submit/linked')
        .slice(before)
        .map((p) => p.fields),
    ).toEqual([{ fn: 'Grace Hopper', em: 'grace@example.org' }]);
    expect(result).toMatchObject({ submitted: true, receipt: { verified: ['full_name', 'email'] } });
  });

  test('a Submit button that only shows "Thank you" (no request) is not a submission', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, { startUrl: forms.url('/thanks-js'), formData: { name: 'Grace Hopper' } });
    await expect(new AutofillAgent().run(ctx)).rejects.toThrow(
      /Not submitted: nothing was sent: after the last click on 'Form' no request/,
    );
    expect(ctx.logs.join('\n')).toContain("clicking 'Submit'");
  });

  for (const [name, shown] of [
    ['thanks', 'a confirmation'],
    ['status', 'a status line'],
  ])
    test(`answered 200, then ${shown}, then an error 40 ms later: not completed (the page is read after the error)`, async ({
      formPage: page,
      forms,
    }) => {
      const ctx = context(page, { startUrl: forms.url(`/late-error/${name}`), formData: { name: 'Grace Hopper' } });
      const failure = await new AutofillAgent().run(ctx).then(
        () => '',
        (error: unknown) => String(error),
      );
      expect(forms.postsTo(`/api/late-error/${name}`)).toHaveLength(1);
      expect(failure, ctx.logs.join('\n')).toMatch(/did not reach a final page/);
      expect(ctx.logs).toContain('page message: "Sorry, the booking could not be saved"');
    });

  for (const [name, how] of [
    ['read', ''],
    ['slow-frames', ' (frames slower than the quiet period)'],
  ])
    test(`answered 200, a confirmation read, then an error drawn within its quiet period${how}: the page is read again, not completed`, async ({
      formPage: page,
      forms,
    }) => {
      const before = forms.postsTo(`/api/late-error/${name}`).length;
      const ctx = context(page, { startUrl: forms.url(`/late-error/${name}`), formData: { name: 'Grace Hopper' } });
      const failure = await new AutofillAgent().run(ctx).then(
        () => '',
        (error: unknown) => String(error),
      );
      expect(forms.postsTo(`/api/late-error/${name}`).slice(before)).toHaveLength(1);
      expect(failure, ctx.logs.join('\n')).toMatch(/did not reach a final page/);
      expect(ctx.logs).toContain('the page changed after it showed a confirmation; reading it again');
      expect(ctx.logs).toContain('page message: "Sorry, the booking could not be saved"');
    });

  test('a form that clears itself after its submission was answered 2xx is submitted once, not filled and sent again', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, {
      startUrl: forms.url('/reset-after'),
      formData: { full_name: 'Ada Lovelace', phone: '0113 496 0000' },
    });
    const { result } = await new AutofillAgent().run(ctx).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${ctx.logs.join('\n')}`);
    });
    expect(
      forms.postsTo('/api/reset-after').map((p) => p.json),
      ctx.logs.join('\n'),
    ).toEqual([{ name: 'Ada Lovelace', phone: '0113 496 0000' }]);
    expect(result).toMatchObject({
      submitted: true,
      receipt: { response_status: 200, verified: ['full_name', 'phone'] },
    });
    expect(ctx.logs).toContain('the submitted form still shows after its submission was answered: done');
  });

  test("the click's request handed to Portico late (after the filler typed again) is still the click's submission, seen once", async ({
    formPage: page,
    forms,
  }) => {
    // A loaded machine hands the request the click sent to page.route long after the click was read as done
    // (CI: carbon-gym-membership). Reproduced by holding page.route's delivery of the POST until the filler has
    // typed into the form again; the browser sent it at the click all the same.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const route = page.route.bind(page);
    const unroute = page.unroute.bind(page);
    const wrapped = new Map<unknown, Parameters<Page['route']>[1]>();
    page.route = ((url: Parameters<Page['route']>[0], handler: Parameters<Page['route']>[1], options) => {
      const late: Parameters<Page['route']>[1] = async (r, request) => {
        if (request.url().endsWith('/api/late')) await held;
        return (handler as (r: unknown, q: unknown) => Promise<void>)(r, request);
      };
      wrapped.set(handler, late);
      return route(url, late, options);
    }) as Page['route'];
    page.unroute = ((url: Parameters<Page['unroute']>[0], handler?: Parameters<Page['unroute']>[1]) =>
      unroute(url, handler ? (wrapped.get(handler) ?? handler) : handler)) as Page['unroute'];
    try {
      const ctx = context(page, {
        startUrl: forms.url('/late-form'),
        formData: { full_name: 'Priya Raman', email: 'priya@example.org' },
      });
      let clicked = false;
      ctx.log = (line) => {
        ctx.logs.push(line);
        if (line.startsWith('clicking ')) clicked = true;
        // The filler typed into the form again after its click: the request reaches Portico now.
        else if (clicked && line.includes(' → ')) release();
      };
      const outcome = await new AutofillAgent().run(ctx).catch((error: unknown) => error);
      const report = `${outcome instanceof Error ? outcome.message : ''}\n${ctx.logs.join('\n')}`;
      expect(outcome, report).not.toBeInstanceOf(Error);
      expect(
        forms.postsTo('/api/late').map((p) => p.json),
        report,
      ).toEqual([{ name: 'Priya Raman', email: 'priya@example.org' }]);
      expect((outcome as { result: Record<string, unknown> }).result, report).toMatchObject({
        submitted: true,
        receipt: { url: forms.url('/api/late'), response_status: 200, verified: ['full_name', 'email'] },
      });
      expect(
        ctx.logs.filter((l) => l.includes('(sent by the click, seen late)')),
        report,
      ).toHaveLength(1);
    } finally {
      release();
      page.route = route;
      page.unroute = unroute;
    }
  });

  test('a control drawn again (a new element) while it is filled is found again by its key and filled once more, with no wait for the gone one', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, { startUrl: forms.url('/redrawn'), formData: { full_name: 'Ada Lovelace' } });
    // A small budget: a wait for the gone element would fail the job saying so, instead of passing late.
    ctx.budget = { ms: () => 20_000, exhausted: (d) => `out of time: ${d}` };
    const outcome = await new AutofillAgent().run(ctx).catch((error: unknown) => error);
    const report = `${outcome instanceof Error ? outcome.message : ''}\n${ctx.logs.join('\n')}`;
    expect(outcome, report).not.toBeInstanceOf(Error);
    expect(
      forms.postsTo('/submit/redrawn').map((p) => p.fields),
      report,
    ).toEqual([{ nm: 'Ada Lovelace' }]);
    expect(
      ctx.logs.filter((l) => l.includes('was drawn again while being filled')),
      report,
    ).toEqual(["'Full name' (form_data 'full_name') was drawn again while being filled; filling it again"]);
  });

  test('a submit button drawn again as the pointer reaches it is read again and clicked, not waited for', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, { startUrl: forms.url('/redrawn-button'), formData: { full_name: 'Ada Lovelace' } });
    // A wait for the gone button would fail the job saying so (after 20 s), instead of passing late.
    ctx.budget = { ms: () => 20_000, exhausted: (d) => `out of time: ${d}` };
    const outcome = await new AutofillAgent().run(ctx).catch((error: unknown) => error);
    const report = `${outcome instanceof Error ? outcome.message : ''}\n${ctx.logs.join('\n')}`;
    expect(outcome, report).not.toBeInstanceOf(Error);
    expect(
      forms.postsTo('/submit/redrawn-button').map((p) => p.fields),
      report,
    ).toEqual([{ nm: 'Ada Lovelace' }]);
    expect(
      ctx.logs.filter((l) => l.includes('was drawn again before it could be clicked')),
      report,
    ).toEqual(["'Send' was drawn again before it could be clicked; reading the page again"]);
  });

  /** Books on `/confirm-later/<variant>` (`-late` with the click reported late); `clickReportedLate`: the click's completion reaches the filler only at the end. */
  const bookBeforeConfirmation = async (
    page: Page,
    forms: { url(path: string): string; postsTo(path: string): Array<{ json?: unknown }> },
    variant: 'same' | 'disabled' | 'redrawn',
    clickReportedLate = false,
  ): Promise<void> => {
    const name = clickReportedLate ? `${variant}-late` : variant;
    const frame = page.mainFrame();
    const locator = frame.locator.bind(frame);
    let reported = (): void => undefined;
    const late = new Promise<void>((resolve) => {
      reported = resolve;
    });
    if (clickReportedLate)
      // A loaded machine: the click went through, the page answered it, but Playwright reports the click done only
      // long after (the filler's wait for it ends when the button it clicked leaves the page: whileMarked).
      frame.locator = ((selector: string, options?: Parameters<Frame['locator']>[1]) => {
        const loc = locator(selector, options);
        const click = loc.click.bind(loc);
        loc.click = async (o) => {
          await click(o);
          await late;
        };
        return loc;
      }) as Frame['locator'];
    try {
      const ctx = context(page, {
        startUrl: forms.url(`/confirm-later/${name}`),
        formData: { full_name: 'Ada Lovelace', email: 'ada@example.org' },
      });
      ctx.budget = { ms: () => 20_000, exhausted: (d) => `out of time: ${d}` };
      const outcome = await new AutofillAgent().run(ctx).catch((error: unknown) => error);
      const report = `${outcome instanceof Error ? outcome.message : ''}\n${ctx.logs.join('\n')}`;
      expect(
        forms.postsTo(`/api/confirm-later/${name}`).map((p) => p.json),
        report,
      ).toEqual([{ name: 'Ada Lovelace', email: 'ada@example.org' }]);
      expect(outcome, report).not.toBeInstanceOf(Error);
      expect((outcome as { result: Record<string, unknown> }).result, report).toMatchObject({
        submitted: true,
        receipt: { response_status: 200, verified: ['full_name', 'email'] },
      });
      // One click, and no wait for a control or button (a wait would be logged, or fail the job with the budget's text).
      expect(
        ctx.logs.filter((l) => l.startsWith('clicking ')),
        report,
      ).toEqual(["clicking 'Book session' (submit)"]);
    } finally {
      frame.locator = locator;
      reported();
      confirmLater.release();
    }
  };

  test('a booking answered 200 whose confirmation comes later is sent once; the form still showing is not sent again', async ({
    formPage: page,
    forms,
  }) => {
    await bookBeforeConfirmation(page, forms, 'same');
  });

  test('a booking answered 200, its button disabled until the confirmation comes: sent once, no wait for the button', async ({
    formPage: page,
    forms,
  }) => {
    await bookBeforeConfirmation(page, forms, 'disabled');
  });

  test('a booking answered 200, its form drawn again (new elements) before the confirmation: sent once', async ({
    formPage: page,
    forms,
  }) => {
    await bookBeforeConfirmation(page, forms, 'redrawn');
  });

  test('a booking answered 200, its form drawn again, the click reported done only after that (a loaded machine): sent once, not clicked again', async ({
    formPage: page,
    forms,
  }) => {
    await bookBeforeConfirmation(page, forms, 'redrawn', true);
  });

  test('holds a request whose phone digits changed between the field and the request: no human → fails naming the key', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, { startUrl: forms.url('/phone'), formData: { mobile_phone: '+1 503 555 0182' } });
    await expect(new AutofillAgent().run(ctx)).rejects.toThrow(
      "The form was about to send '(150) 355-5018' for form_data 'mobile_phone' ('Mobile phone') but form_data gave '+1 503 555 0182'; the request was held and not sent",
    );
    expect(forms.postsTo('/submit/phone')).toHaveLength(0);
  });

  test('asks Send / Correct / Cancel about a held request; Cancel never sends it', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, {
      startUrl: forms.url('/phone'),
      formData: { mobile_phone: '+1 503 555 0182' },
      answers: ['Cancel'],
    });
    await expect(new AutofillAgent().run(ctx)).rejects.toThrow(/Cancelled by a human/);
    expect(ctx.questions[0]).toMatchObject({
      question: "About to send '(150) 355-5018' for mobile_phone; you gave '+1 503 555 0182'.",
      options: ['Send', 'Correct', 'Cancel'],
    });
    expect(forms.postsTo('/submit/phone')).toHaveLength(0);
  });

  test("Correct types the human's value and checks the request again; Send sends it as it was", async ({
    formPage: page,
    forms,
  }) => {
    const corrected = context(page, {
      startUrl: forms.url('/phone'),
      formData: { mobile_phone: '+1 503 555 0182' },
      answers: ['Correct', '503 555 0182'],
    });
    const { result } = await new AutofillAgent().run(corrected);
    expect(corrected.questions.map((q) => q.question)).toEqual([
      "About to send '(150) 355-5018' for mobile_phone; you gave '+1 503 555 0182'.",
      "What should be typed into 'Mobile phone' for mobile_phone?",
    ]);
    expect(forms.postsTo('/submit/phone').map((p) => p.fields)).toEqual([{ mobile: '(503) 555-0182' }]);
    expect(receiptOf(result)).toMatchObject({
      verified: ['mobile_phone'],
      unverified: [],
      fields: { mobile: '(503) 555-0182' },
    });

    const sent = context(page, {
      startUrl: forms.url('/phone'),
      formData: { mobile_phone: '+1 503 555 0182' },
      answers: ['Send'],
    });
    const second = await new AutofillAgent().run(sent);
    expect(forms.postsTo('/submit/phone').map((p) => p.fields)).toEqual([
      { mobile: '(503) 555-0182' },
      { mobile: '(150) 355-5018' },
    ]);
    expect(receiptOf(second.result)).toMatchObject({ verified: [], approved: ['mobile_phone'] });
  });

  test('reads a typed value back: a mask that shifted the digits is retyped in the national spelling, one that drops a digit fails', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, { startUrl: forms.url('/masked'), formData: { mobile_phone: '+1 503 555 0182' } });
    const { result } = await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/masked').map((p) => p.fields)).toEqual([{ mobile: '(503) 555-0182' }]);
    expect(result).toMatchObject({
      placements: { mobile_phone: { value: '(503) 555-0182', how: 'normalised' } },
      receipt: { verified: ['mobile_phone'] },
    });

    const short = context(page, { startUrl: forms.url('/masked-short'), formData: { mobile_phone: '503 555 0182' } });
    await expect(new AutofillAgent().run(short)).rejects.toThrow(
      "'Mobile phone' took '(503) 555-018' for form_data 'mobile_phone' but form_data gave '503 555 0182': the field changed its meaning",
    );
    const asked = context(page, {
      startUrl: forms.url('/masked-short'),
      formData: { mobile_phone: '503 555 0182' },
      answers: ['Cancel'],
    });
    await expect(new AutofillAgent().run(asked)).rejects.toThrow(/Cancelled by a human/);
    expect(asked.questions[0]).toMatchObject({
      question: "'Mobile phone' shows '(503) 555-018' for mobile_phone; you gave '503 555 0182'.",
      options: ['Keep', 'Correct', 'Cancel'],
    });
    expect(forms.postsTo('/submit/masked-short')).toHaveLength(0);
  });

  test("a select whose submitted value is not its label verifies by the option's value; a page that changes the option before sending is held", async ({
    formPage: page,
    forms,
  }) => {
    const ok = context(page, { startUrl: forms.url('/state'), formData: { state: 'Texas' } });
    const { result } = await new AutofillAgent().run(ok);
    expect(forms.postsTo('/submit/state').map((p) => p.fields)).toEqual([{ state: 'TX' }]);
    expect(receiptOf(result)).toMatchObject({ fields: { state: 'TX' }, verified: ['state'], unverified: [] });

    const rewritten = context(page, { startUrl: forms.url('/state-rewrite'), formData: { state: 'Texas' } });
    await expect(new AutofillAgent().run(rewritten)).rejects.toThrow(
      "The form was about to send 'TN' for form_data 'state' ('State') but form_data gave 'Texas'",
    );
    expect(forms.postsTo('/submit/state-rewrite')).toHaveLength(0);
  });

  test('a one-time code sent one character per field (six named boxes, or one name repeated) is verified; a page that changes a character before sending is held', async ({
    formPage: page,
    forms,
  }) => {
    const schema = {
      type: 'object',
      required: ['code'],
      properties: { code: { type: 'string', title: 'Verification code' } },
    };
    const named = context(page, { startUrl: forms.url('/otp'), formData: { code: '482 913' }, formSchema: schema });
    const { result } = await new AutofillAgent().run(named);
    expect(forms.postsTo('/submit/otp').map((p) => p.fields)).toEqual([
      { otp1: '4', otp2: '8', otp3: '2', otp4: '9', otp5: '1', otp6: '3' },
    ]);
    expect(receiptOf(result), named.logs.join('\n')).toMatchObject({
      verified: ['code'],
      unverified: [],
      approved: [],
    });

    const listed = context(page, {
      startUrl: forms.url('/otp-list'),
      formData: { code: '482913' },
      formSchema: schema,
    });
    const listedRun = await new AutofillAgent().run(listed);
    expect(forms.postsTo('/submit/otp-list')).toHaveLength(1);
    expect(receiptOf(listedRun.result), listed.logs.join('\n')).toMatchObject({
      // `code` is a secret-looking parameter name: masked in the receipt as everywhere.
      fields: { 'code[]': ['[secret]', '[secret]', '[secret]', '[secret]', '[secret]', '[secret]'] },
      verified: ['code'],
      unverified: [],
    });

    const rewritten = context(page, {
      startUrl: forms.url('/otp-rewrite'),
      formData: { code: '482913' },
      formSchema: schema,
    });
    await expect(new AutofillAgent().run(rewritten)).rejects.toThrow(
      "The form was about to send '482931' for form_data 'code' ('Verification code') but form_data gave '482913'; the request was held and not sent",
    );
    expect(forms.postsTo('/submit/otp-rewrite')).toHaveLength(0);
  });

  test('receipt of a fetch with a nested JSON body: fields flattened, sha256 of the bytes the forms got, its status', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = context(page, {
      startUrl: forms.url('/fetch-json'),
      formData: { full_name: 'Ada Lovelace', email: 'ada@example.org', start_date: '27/03/2026' },
    });
    const { result } = await new AutofillAgent().run(ctx);
    const [post] = forms.postsTo('/api/register');
    expect(post?.json).toEqual({
      applicant: { name: 'Ada Lovelace', contact: { email: 'ada@example.org' } },
      start: '2026-03-27',
    });
    expect(receiptOf(result)).toEqual({
      method: 'POST',
      url: forms.url('/api/register'),
      response_status: 201,
      body_sha256: sha256(post?.body),
      fields: { 'applicant.name': 'Ada Lovelace', 'applicant.contact.email': 'ada@example.org', start: '2026-03-27' },
      verified: ['full_name', 'email', 'start_date'],
      unverified: [],
      approved: [],
    });
    expect(result).toMatchObject({ submitted: true, reference: 'REG-4411' });
  });

  test('receipt of a GraphQL mutation: the variables are the fields', async ({ formPage: page, forms }) => {
    const ctx = context(page, {
      startUrl: forms.url('/graphql-form'),
      formData: { full_name: 'Ada Lovelace', email: 'ada@example.org' },
    });
    const { result } = await new AutofillAgent().run(ctx);
    const [post] = forms.postsTo('/graphql');
    expect(receiptOf(result)).toMatchObject({
      method: 'POST',
      url: forms.url('/graphql'),
      response_status: 200,
      body_sha256: sha256(post?.body),
      fields: { 'input.fullName': 'Ada Lovelace', 'input.email': 'ada@example.org' },
      verified: ['full_name', 'email'],
      unverified: [],
    });
  });

  test('receipt of a GET form: the query is what was sent, no body', async ({ formPage: page, forms }) => {
    const ctx = context(page, {
      startUrl: forms.url('/search'),
      formData: { course_name: 'Pottery for beginners', town: 'York' },
    });
    const { result } = await new AutofillAgent().run(ctx);
    expect(receiptOf(result)).toEqual({
      method: 'GET',
      url: `${forms.url('/results')}?q=Pottery+for+beginners&town=York`,
      fields: { q: 'Pottery for beginners', town: 'York' },
      body_sha256: null,
      response_status: 200,
      verified: ['course_name', 'town'],
      unverified: [],
      approved: [],
    });
    expect(result).toMatchObject({ submitted: true, final_url: expect.stringContaining('/results?q=') });
  });

  test('receipt of a sendBeacon carrying the values', async ({ formPage: page, forms }) => {
    const ctx = context(page, {
      startUrl: forms.url('/beacon'),
      formData: { full_name: 'Ada Lovelace', email: 'ada@example.org' },
    });
    const { result } = await new AutofillAgent().run(ctx);
    const [post] = forms.postsTo('/api/beacon');
    expect(post?.fields).toEqual({ who: 'Ada Lovelace', mail: 'ada@example.org' });
    expect(receiptOf(result)).toMatchObject({
      method: 'POST',
      url: forms.url('/api/beacon'),
      response_status: 204,
      body_sha256: sha256(post?.body),
      fields: { who: 'Ada Lovelace', mail: 'ada@example.org' },
      verified: ['full_name', 'email'],
      unverified: [],
    });
  });

  test('receipt of a multipart form with a file, and of a urlencoded form with its password masked', async ({
    formPage: page,
    forms,
  }) => {
    const file = {
      name: 'bill.pdf',
      mime_type: 'application/pdf',
      content_base64: Buffer.from('%PDF-1.4 bill').toString('base64'),
    };
    const upload = context(page, {
      startUrl: forms.url('/upload'),
      formData: { full_name: 'Ada Lovelace', proof_of_address: file },
    });
    const { result } = await new AutofillAgent().run(upload);
    const [post] = forms.postsTo('/submit/upload');
    expect(post?.files.map((f) => f.filename)).toEqual(['bill.pdf']);
    expect(receiptOf(result)).toMatchObject({
      method: 'POST',
      response_status: 200,
      body_sha256: sha256(post?.body),
      fields: { applicant_name: 'Ada Lovelace', proof: 'bill.pdf' },
      verified: ['full_name', 'proof_of_address'],
      unverified: [],
    });

    const plain = context(page, {
      startUrl: forms.url('/plain'),
      formData: { full_name: 'Ada Lovelace', password: 'correct-horse-9' },
    });
    const second = await new AutofillAgent().run(plain);
    const [sentPlain] = forms.postsTo('/submit/plain');
    expect(sentPlain?.fields).toEqual({ full_name: 'Ada Lovelace', pw: 'correct-horse-9' });
    expect(receiptOf(second.result)).toMatchObject({
      method: 'POST',
      url: forms.url('/submit/plain'),
      response_status: 200,
      body_sha256: sha256(sentPlain?.body),
      fields: { full_name: 'Ada Lovelace', pw: '[secret]' },
      verified: ['full_name', 'password'],
      unverified: [],
    });
    expect(JSON.stringify(second.result)).not.toContain('correct-horse-9');
  });
});
