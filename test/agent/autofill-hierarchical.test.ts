/**
 * Cascaders and tree selects (docs/autofill.md, "Cascaders and tree selects"), on a hand-written page
 * with no library: a tree select (a trigger with `aria-haspopup=tree` opening a `role=tree` whose
 * collapsed items say nothing about children until expanded) and a cascader (a `role=listbox` of
 * `role=none` items and no options, a group opening a list of its own inside it on click, a leaf
 * choosing itself). A leaf named once in the tree, and a full path in the cascader, are chosen and
 * sent; a leaf the tree has twice is not guessed, and a bare leaf is not walked in a cascader.
 */
import type { JsonObject } from '../../src-main/contract/common.ts';
import { type Autofill, autofillTest, describe, expect, html } from './autofillTest.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Relocation</title>
<style>.pop{border:1px solid #888;padding:4px;width:260px} [role=treeitem] > div, [role=none] > div{padding:2px;cursor:pointer}</style></head><body>
<main id="main"><h1>Relocation</h1>
<form id="f" novalidate>
  <label for="name">Your name</label> <input id="name" name="name">
  <label id="tl">Team you are joining</label>
  <button type="button" id="team" aria-haspopup="tree" aria-expanded="false" aria-controls="team-pop" aria-labelledby="tl team">Select a team</button>
  <div id="team-pop" class="pop" hidden></div>
  <label id="ol">Destination office</label>
  <button type="button" id="office" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="ol office">Select an office</button>
  <button type="submit">Send request</button>
</form></main>
<script>
  const TEAMS = [
    ['Engineering', null, [['Platform', null, [['Developer Experience', 'dx'], ['Infrastructure', 'infra']]], ['Web', 'web']]],
    ['Operations', null, [['People', 'people'], ['Finance', 'finance'], ['Web', 'ops-web']]],
  ];
  const OFFICES = [
    ['Europe', null, [['France', null, [['Paris', 'PAR'], ['Lyon', 'LYO']]], ['Spain', null, [['Madrid', 'MAD']]]]],
    ['North America', null, [['United States', null, [['Paris', 'PRS'], ['Austin', 'AUS']]]]],
  ];
  const state = { team: null, office: null };
  // Tree select: items say aria-expanded only once expanded; ArrowRight expands, Enter chooses a leaf.
  const teamBtn = document.getElementById('team');
  const pop = document.getElementById('team-pop');
  function treeItems(nodes, parent) {
    const ul = document.createElement('ul');
    ul.setAttribute('role', parent ? 'group' : 'tree');
    for (const [label, value, children] of nodes) {
      const li = document.createElement('li');
      li.setAttribute('role', 'treeitem');
      li.tabIndex = -1;
      const row = document.createElement('div');
      row.textContent = label;
      li.append(row);
      li.addEventListener('keydown', (e) => {
        if (e.target !== li) return;
        if (e.key === 'ArrowRight' && children && li.getAttribute('aria-expanded') !== 'true') {
          li.setAttribute('aria-expanded', 'true');
          li.append(treeItems(children, li));
        } else if (e.key === 'Enter' && !children) choose(label, value);
        e.preventDefault();
      });
      ul.append(li);
    }
    return ul;
  }
  function choose(label, value) {
    state.team = value;
    teamBtn.textContent = label;
    pop.hidden = true;
    teamBtn.setAttribute('aria-expanded', 'false');
  }
  teamBtn.addEventListener('click', () => {
    pop.innerHTML = '';
    pop.append(treeItems(TEAMS, null));
    pop.hidden = false;
    teamBtn.setAttribute('aria-expanded', 'true');
  });
  // Cascader: a listbox of role=none items; a group's click opens its own list inside it, a leaf's chooses it.
  const officeBtn = document.getElementById('office');
  let overlay = null;
  function level(nodes) {
    const ul = document.createElement('ul');
    ul.setAttribute('role', 'listbox');
    for (const [label, value, children] of nodes) {
      const li = document.createElement('li');
      li.setAttribute('role', 'none');
      const content = document.createElement('div');
      content.textContent = label;
      content.tabIndex = 0;
      content.addEventListener('click', () => {
        for (const open of ul.querySelectorAll(':scope > li > ul')) open.remove();
        if (children) { li.append(level(children)); return; }
        state.office = value;
        officeBtn.textContent = label;
        overlay.remove();
        overlay = null;
      });
      li.append(content);
      ul.append(li);
    }
    return ul;
  }
  officeBtn.addEventListener('click', () => {
    if (overlay) return;
    overlay = document.createElement('div');
    overlay.className = 'pop';
    overlay.append(level(OFFICES));
    document.body.append(overlay);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    pop.hidden = true;
    if (overlay) { overlay.remove(); overlay = null; }
  });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/relocation', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: document.getElementById('name').value, ...state }) });
    document.getElementById('main').innerHTML = '<h1>Request sent</h1><p role="status">Thank you, your request has been received.</p>';
  });
</script></body></html>`;

const SCHEMA = {
  type: 'object',
  properties: {
    full_name: { type: 'string', title: 'Your name' },
    team: { type: 'string', title: 'Team you are joining' },
    destination_office: { type: 'string', title: 'Destination office' },
  },
};

const test = autofillTest({ '/relocation/form': html(PAGE) });

/** The relocation form filled with `formData`: the failure, the JSON posts sent, and a report for assertions. */
const run = async (autofill: Autofill, formData: JsonObject) => {
  const { failure, posts, report } = await autofill({
    path: '/relocation/form',
    submitTo: '/submit/relocation',
    formData,
    formSchema: SCHEMA,
  });
  return { failure, posts: posts.map((p) => p.json), report };
};

describe('cascaders and tree selects in a page (no library)', () => {
  test('chooses a leaf named once in the tree, and walks a full path through the cascader', async ({ autofill }) => {
    const { failure, posts, report } = await run(autofill, {
      full_name: 'Ada Byron',
      team: 'Developer Experience',
      destination_office: 'Europe > France > Paris',
    });
    expect(failure, report).toBe('');
    expect(posts, report).toEqual([{ name: 'Ada Byron', team: 'dx', office: 'PAR' }]);
    expect(report).toContain(
      "team → 'Team you are joining' (select-aria #team) = Engineering > Platform > Developer Experience",
    );
    expect(report).toContain(
      "destination_office → 'Destination office' (select-aria #office) = Europe > France > Paris",
    );
  });

  test('does not guess: a leaf the tree has twice, or a bare leaf for the cascader, fails with nothing sent', async ({
    autofill,
  }) => {
    const twice = await run(autofill, { full_name: 'Ada Byron', team: 'Web' });
    expect(twice.failure).toContain("'Web' matches more than one option of 'Team you are joining");
    expect(twice.posts).toEqual([]);
    const bare = await run(autofill, { full_name: 'Ada Byron', destination_office: 'Paris' });
    expect(bare.failure).toContain('a cascader takes the full path from its first level');
    expect(bare.posts).toEqual([]);
  });
});
