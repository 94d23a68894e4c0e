// tier: unit
/**
 * Field arrays (issue 20): an array of objects in form_data becomes one entry per leaf of each item,
 * and each item's keys match only the controls of its own repeated row, so a label repeated in every
 * row ("Phone") is never ambiguous and a top-level key never lands in a row. Pure functions, no browser.
 */
import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import { flattenFormData } from '../../src-main/agent/autofill/entries.ts';
import { addButtonFor, arrayRows, matchScoped } from '../../src-main/agent/autofill/fieldArrays.ts';
import { buildTargets } from '../../src-main/agent/autofill/targets.ts';
import type { FrameScan, ScannedButton, ScannedControl } from '../../src-main/agent/injected/scanTypes.ts';

let seq = 0;
function input(label: string, row?: { set: string; index: number }): ScannedControl {
  seq += 1;
  return {
    pid: `p${seq}`,
    tag: 'input',
    type: 'text',
    role: '',
    name: '',
    id: '',
    labels: [label],
    ariaLabel: '',
    labelledBy: '',
    describedBy: '',
    placeholder: '',
    title: '',
    legends: [],
    nearText: '',
    autocomplete: '',
    ariaAutocomplete: '',
    required: true,
    visible: true,
    disabled: false,
    readOnly: false,
    value: '',
    checked: false,
    options: [],
    multiple: false,
    valid: true,
    validationMessage: '',
    errorText: '',
    pattern: '',
    maxLength: -1,
    groupKey: `g${seq}`,
    formKey: 'f',
    hasListbox: false,
    aria: false,
    hiddenPid: '',
    datalist: false,
    lang: 'en',
    hintText: '',
    affixes: '',
    labelOnly: false,
    mask: '',
    ...(row && { row: `${row.set}-${row.index}`, rowSet: row.set, rowIndex: row.index }),
  };
}
const button = (text: string): ScannedButton => ({
  pid: `b${text.length}`,
  text,
  tag: 'button',
  type: 'button',
  visible: true,
  disabled: false,
  formKey: 'f',
  primary: false,
});
const scan = (controls: ScannedControl[], buttons: ScannedButton[] = []): Array<{ frame: Frame; scan: FrameScan }> => [
  {
    frame: {} as Frame,
    scan: { url: 'http://x/', title: 'x', headings: [], controls, buttons, errors: [], bodyText: '' },
  },
];

const DATA = {
  full_name: 'Owen Price',
  contacts: [
    { name: 'Carys Price', phone: '029 2018 0456' },
    { name: 'Gareth Price', phone: '029 2018 0789' },
  ],
};
const SCHEMA = {
  type: 'object',
  required: ['full_name', 'contacts'],
  properties: {
    full_name: { type: 'string', title: 'Full name' },
    contacts: {
      type: 'array',
      title: 'Emergency contacts',
      items: { type: 'object', required: ['name'], properties: { name: { title: 'Name' }, phone: { title: 'Phone' } } },
    },
  },
};

describe('field arrays', () => {
  it('flattens an array of objects into per-item entries keyed by index', () => {
    const entries = flattenFormData(DATA, SCHEMA);
    expect(entries.map((e) => [e.key, e.required, e.item?.index ?? null])).toEqual([
      ['full_name', true, null],
      ['contacts[0].name', true, 0],
      ['contacts[0].phone', false, 0],
      ['contacts[1].name', true, 1],
      ['contacts[1].phone', false, 1],
    ]);
    // Arrays of plain values stay one value (a checkbox group's choices).
    expect(flattenFormData({ needs: ['Hotel', 'Car'] }, {}).map((e) => e.key)).toEqual(['needs']);
  });

  it("asks for another row with the form's own Add control while the page shows fewer rows than items", () => {
    const entries = flattenFormData(DATA, SCHEMA);
    const one = scan(
      [input('Full name'), input('Name'), input('Phone')],
      [button('Add another contact'), button('Save contacts')],
    );
    const [layout] = arrayRows(entries, buildTargets(one), one[0]?.scan.buttons ?? []);
    expect(layout?.rows.length).toBe(0);
    expect(layout?.add?.text).toBe('Add another contact');
    // A button naming something else is not this array's Add control.
    expect(addButtonFor('contacts', 'Emergency contacts', [button('Add a document')])).toBeNull();
  });

  it('adds the first row of a list that starts empty when one item finds no control; never when its row is shown', () => {
    const data = { full_name: 'Owen Price', guests: [{ guest_name: 'Aoife Byrne', guest_email: 'aoife@example.ie' }] };
    const schema = {
      type: 'object',
      properties: {
        full_name: { type: 'string', title: 'Full name' },
        guests: {
          type: 'array',
          title: 'Guests attending the reception',
          items: {
            type: 'object',
            properties: { guest_name: { title: 'Guest name' }, guest_email: { title: 'Guest email' } },
          },
        },
      },
    };
    const entries = flattenFormData(data, schema);
    const empty = scan([input('Full name'), input('Work email')], [button('Add another guest'), button('Register')]);
    expect(arrayRows(entries, buildTargets(empty), empty[0]?.scan.buttons ?? [])[0]?.add?.text).toBe(
      'Add another guest',
    );
    // Once the lone row is there (not recognisable as a row), its controls take the item like any field.
    const shown = scan(
      [input('Full name'), input('Work email'), input('Guest name'), input('Guest email')],
      [button('Add another guest'), button('Register')],
    );
    expect(arrayRows(entries, buildTargets(shown), shown[0]?.scan.buttons ?? [])[0]?.add).toBeNull();
  });

  it('matches item i only within row i; the top-level key never lands in a row', () => {
    const entries = flattenFormData(DATA, SCHEMA);
    const controls = [
      input('Full name'),
      input('Name', { set: 'rows', index: 0 }),
      input('Phone', { set: 'rows', index: 0 }),
      input('Name', { set: 'rows', index: 1 }),
      input('Phone', { set: 'rows', index: 1 }),
    ];
    const targets = buildTargets(scan(controls));
    const layout = arrayRows(entries, targets, []);
    expect(layout[0]?.rows.length).toBe(2);
    expect(layout[0]?.add).toBeNull();
    const { placements, ambiguous } = matchScoped(entries, targets, layout);
    expect(ambiguous).toEqual([]);
    const where = Object.fromEntries(placements.map((p) => [p.entry.key, p.target.controls[0]?.pid]));
    expect(where).toEqual({
      full_name: controls[0]?.pid,
      'contacts[0].name': controls[1]?.pid,
      'contacts[0].phone': controls[2]?.pid,
      'contacts[1].name': controls[3]?.pid,
      'contacts[1].phone': controls[4]?.pid,
    });
  });

  it('leaves items without a row unplaced rather than putting them in another row', () => {
    const entries = flattenFormData(DATA, SCHEMA);
    const targets = buildTargets(
      scan([
        input('Full name'),
        input('Name', { set: 'rows', index: 0 }),
        input('Phone', { set: 'rows', index: 0 }),
        input('Company', { set: 'other', index: 0 }),
      ]),
    );
    const { placements } = matchScoped(entries, targets, arrayRows(entries, targets, []));
    expect(placements.map((p) => p.entry.key).sort()).toEqual(['contacts[0].name', 'contacts[0].phone', 'full_name']);
  });
});
