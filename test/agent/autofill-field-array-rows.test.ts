/**
 * Field arrays in a page (docs/autofill.md, "Field arrays"), hand-written, no library: rows whose
 * controls live in the open shadow roots of a web component (each row two `<x-field>` hosts, labelled
 * the same in every row), and a list that starts with no row at all, which the form's own "Add another
 * guest" button fills in. Each item goes into its own row (the same labels in every row are never
 * ambiguous) and the form sends exactly the items.
 */
import type { JsonObject } from '../../src-main/contract/common.ts';
import { scanPageText } from '../../src-main/agent/injected/index.ts';
import { autofillTest, describe, expect, html } from './autofillTest.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Invite your team</title></head><body>
<main id="main">
<h1>Invite your team</h1>
<form id="f" novalidate>
  <x-field id="team" label="Team name"></x-field>
  <div id="people"></div>
  <button type="button" id="add-person">Add another person</button>
  <fieldset>
    <legend>Guests at the launch dinner</legend>
    <div id="guests"></div>
    <button type="button" id="add-guest">Add another guest</button>
  </fieldset>
  <button type="submit">Send invitations</button>
</form>
</main>
<script>
  // A text field component: its label and input live in its open shadow root.
  customElements.define('x-field', class extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      const root = this.attachShadow({ mode: 'open' });
      root.innerHTML = '<div class="wrap"><div class="inner"><label for="input"></label><div class="box"><input id="input"></div></div></div>';
      root.querySelector('label').textContent = this.getAttribute('label');
    }
    get value() { return this.shadowRoot.querySelector('input').value; }
  });
  const people = document.getElementById('people');
  function addPerson() {
    const n = people.children.length + 1;
    const row = document.createElement('fieldset');
    row.className = 'person';
    row.innerHTML = '<legend>Person ' + n + '</legend><x-field label="Full name"></x-field><x-field label="Email address"></x-field>';
    people.append(row);
  }
  const guests = document.getElementById('guests');
  document.getElementById('add-person').addEventListener('click', addPerson);
  document.getElementById('add-guest').addEventListener('click', () => {
    const n = guests.children.length + 1;
    const row = document.createElement('div');
    row.setAttribute('role', 'group');
    row.setAttribute('aria-label', 'Guest ' + n);
    row.innerHTML = '<label>Guest name <input name="g' + n + 'n"></label> <label>Guest email <input name="g' + n + 'e"></label>';
    guests.append(row);
  });
  addPerson();
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {
      team: document.getElementById('team').value,
      people: [...people.children].map((r) => { const [n, m] = r.querySelectorAll('x-field'); return { name: n.value, email: m.value }; }),
      guests: [...guests.children].map((r) => { const [n, m] = r.querySelectorAll('input'); return { name: n.value, email: m.value }; }),
    };
    await fetch('/submit/team', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    document.getElementById('main').innerHTML = '<h1>Invitations sent</h1><p role="status">Thank you, your invitations have been sent.</p>';
  });
</script></body></html>`;

const SCHEMA = {
  type: 'object',
  required: ['team_name', 'people'],
  properties: {
    team_name: { type: 'string', title: 'Team name' },
    people: {
      type: 'array',
      title: 'People to invite',
      items: {
        type: 'object',
        required: ['full_name', 'email'],
        properties: { full_name: { title: 'Full name' }, email: { title: 'Email address', format: 'email' } },
      },
    },
    guests: {
      type: 'array',
      title: 'Guests at the launch dinner',
      items: {
        type: 'object',
        properties: { guest_name: { title: 'Guest name' }, guest_email: { title: 'Guest email' } },
      },
    },
  },
};

const test = autofillTest({ '/team/form': html(PAGE) });

describe('field arrays in a page (no library)', () => {
  test('spreads items over rows of shadow-DOM controls, and adds the first row of a list that starts empty', async ({
    autofill,
  }) => {
    const { failure, posts, logs, report } = await autofill({
      path: '/team/form',
      submitTo: '/submit/team',
      formData: {
        team_name: 'Harbour Lights',
        people: [
          { full_name: 'Priya Shah', email: 'priya@example.org' },
          { full_name: 'Owen Hughes', email: 'owen@example.org' },
        ],
        guests: [{ guest_name: 'Aoife Byrne', guest_email: 'aoife@example.ie' }],
      },
      formSchema: SCHEMA as JsonObject,
    });
    expect(failure, report).toBe('');
    expect(
      posts.map((p) => p.json),
      report,
    ).toEqual([
      {
        team: 'Harbour Lights',
        people: [
          { name: 'Priya Shah', email: 'priya@example.org' },
          { name: 'Owen Hughes', email: 'owen@example.org' },
        ],
        guests: [{ name: 'Aoife Byrne', email: 'aoife@example.ie' }],
      },
    ]);
    expect(logs).toContain("people: 0 row(s) shown for 2 item(s); clicking 'Add another person'");
    expect(logs).toContain("guests: 0 row(s) shown for 1 item(s); clicking 'Add another guest'");
  });

  test('the scan the turn began with is the one the rows are counted on: no second scan of an untouched page', async ({
    autofill,
    formPage,
  }) => {
    // Every page scan of the job, counted where the filler sends it (the page's main frame; this page has no other).
    const frame = formPage.mainFrame();
    const evaluate = frame.evaluate.bind(frame);
    let scans = 0;
    frame.evaluate = ((fn: unknown, arg?: unknown) => {
      if (fn === scanPageText) scans += 1;
      return evaluate(fn as never, arg as never);
    }) as typeof frame.evaluate;
    try {
      const { failure, report } = await autofill({
        path: '/team/form',
        submitTo: '/submit/team',
        formData: { team_name: 'Harbour Lights', people: [{ full_name: 'Priya Shah', email: 'priya@example.org' }] },
        formSchema: SCHEMA as JsonObject,
      });
      expect(failure, report).toBe('');
    } finally {
      frame.evaluate = evaluate;
    }
    // The one row shown holds the one item: the turn's scan, the reveal pass's after the fills, the page after the
    // click (the confirmation). Counting rows on a scan of its own would make it 4.
    expect(scans).toBe(3);
  });

  test('the scan that shows the rows all there after an "Add" click is the one the first fills plan on', async ({
    autofill,
    formPage,
  }) => {
    const frame = formPage.mainFrame();
    const evaluate = frame.evaluate.bind(frame);
    let scans = 0;
    frame.evaluate = ((fn: unknown, arg?: unknown) => {
      if (fn === scanPageText) scans += 1;
      return evaluate(fn as never, arg as never);
    }) as typeof frame.evaluate;
    let outcome: Awaited<ReturnType<typeof autofill>>;
    try {
      outcome = await autofill({
        path: '/team/form',
        submitTo: '/submit/team',
        formData: {
          team_name: 'Harbour Lights',
          people: [
            { full_name: 'Priya Shah', email: 'priya@example.org' },
            { full_name: 'Owen Hughes', email: 'owen@example.org' },
          ],
        },
        formSchema: SCHEMA as JsonObject,
      });
    } finally {
      frame.evaluate = evaluate;
    }
    const { failure, posts, logs, report } = outcome;
    expect(failure, report).toBe('');
    expect(posts.map((p) => p.json)).toEqual([
      {
        team: 'Harbour Lights',
        people: [
          { name: 'Priya Shah', email: 'priya@example.org' },
          { name: 'Owen Hughes', email: 'owen@example.org' },
        ],
        guests: [],
      },
    ]);
    expect(logs).toContain("people: 0 row(s) shown for 2 item(s); clicking 'Add another person'");
    // The turn's scan (fewer rows than items: "Add" clicked), the scan after that click (none to add, and
    // the page the fills start on), the reveal pass's after the fills, the page after the submit. Reading the page
    // again before the first fill would make it 5.
    expect(scans).toBe(4);
  });
});
