// tier: unit
import { describe, expect, it } from 'vitest';
import {
  actionVariables,
  keyName,
  parseAction,
  type ParsedAction,
} from '../../src-main/agent/actions/actionGrammar.ts';
import {
  ActionSyntaxError,
  MissingVariableError,
  renderTemplate,
  templateSource,
  type Template,
} from '../../src-main/agent/actions/actionTemplate.ts';

/** The parse with templates written back as text, so expectations read like the actions. */
function read(action: string): Record<string, unknown> | undefined {
  const parsed = parseAction(action);
  if (!parsed) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed as ParsedAction)) {
    if (Array.isArray(value)) out[key] = templateSource(value as Template);
    else if (key === 'target') {
      const t = value as { name: Template; kind: string; quoted: boolean };
      out.target = `${t.kind}:${templateSource(t.name)}${t.quoted ? ' (quoted)' : ''}`;
    } else out[key] = value;
  }
  return out;
}

describe('the action grammar reads plain imperative English', () => {
  it.each([
    ['go to https://example.com/login', { op: 'goto', url: 'https://example.com/login' }],
    ['Open example.com', { op: 'goto', url: 'example.com' }],
    ['navigate to {{base_url}}/signin', { op: 'goto', url: '{{base_url}}/signin' }],
    ['visit "/account"', { op: 'goto', url: '/account' }],
    ['click the Continue button', { op: 'click', target: 'button:Continue' }],
    ['Click on "Sign in".', { op: 'click', target: 'any:Sign in (quoted)' }],
    ["click the link 'Privacy policy'", { op: 'click', target: 'link:Privacy policy (quoted)' }],
    ['open the menu', { op: 'click', target: 'any:menu' }],
    ['type {{email}} into the Email address field', { op: 'fill', text: '{{email}}', target: 'field:Email address' }],
    ['enter "New York" in City', { op: 'fill', text: 'New York', target: 'field:City' }],
    ['fill in Full name with Ada Lovelace', { op: 'fill', text: 'Ada Lovelace', target: 'field:Full name' }],
    [
      'fill the "Search" box with "type into me"',
      { op: 'fill', text: 'type into me', target: 'field:Search (quoted)' },
    ],
    ['set Quantity to 3', { op: 'fill', text: '3', target: 'field:Quantity' }],
    ['type "{{first}} {{last}}" into Name', { op: 'fill', text: '{{first}} {{last}}', target: 'field:Name' }],
    ['select France from the Country dropdown', { op: 'select', option: 'France', target: 'dropdown:Country' }],
    [
      'choose "Option in the middle" in Size',
      { op: 'select', option: 'Option in the middle', target: 'dropdown:Size' },
    ],
    [
      'choose Yes for Were you born in the UK?',
      { op: 'select', option: 'Yes', target: 'dropdown:Were you born in the UK?' },
    ],
    ['select the Yes radio button', { op: 'check', checked: true, target: 'radio:Yes' }],
    ['check "I agree to the terms"', { op: 'check', checked: true, target: 'choice:I agree to the terms (quoted)' }],
    ['tick the Email me updates checkbox', { op: 'check', checked: true, target: 'checkbox:Email me updates' }],
    ['uncheck Remember me', { op: 'check', checked: false, target: 'choice:Remember me' }],
    ['press Enter', { op: 'press', key: 'Enter' }],
    ['press the down arrow key', { op: 'press', key: 'ArrowDown' }],
    ['hit ctrl+a in the Notes field', { op: 'press', key: 'Control+a', target: 'field:Notes' }],
    ['press the Submit button', { op: 'click', target: 'button:Submit' }],
    ['hover over the Account menu', { op: 'hover', target: 'dropdown:Account' }],
    ['scroll down', { op: 'scroll', direction: 'down' }],
    ['scroll to the bottom of the page', { op: 'scroll', direction: 'bottom' }],
    ['scroll to the Contact us link', { op: 'scroll_to', target: 'link:Contact us' }],
    ['wait for "Saved"', { op: 'wait_for_text', text: 'Saved' }],
    ['wait until Payment received appears', { op: 'wait_for_text', text: 'Payment received' }],
    ['extract the text of the Reference number', { op: 'extract', target: 'any:Reference number' }],
    ['read the page text', { op: 'extract' }],
    ['get the text of "Total"', { op: 'extract', target: 'any:Total (quoted)' }],
    ['please click Next', { op: 'click', target: 'any:Next' }],
    // Issue 24: questions read as extract; a quoted or page-named word is a link, not a URL; "box" is a hint.
    ['What is the reference number?', { op: 'extract', target: 'any:reference number' }],
    ["what's the date of birth", { op: 'extract', target: 'any:date of birth' }],
    ['open "Privacy"', { op: 'click', target: 'navigable:Privacy (quoted)' }],
    ['open the Privacy page', { op: 'click', target: 'navigable:Privacy' }],
    ['open gov.uk/apply', { op: 'goto', url: 'gov.uk/apply' }],
    ['click the Text message box', { op: 'click', target: 'box:Text message' }],
    ['tick the Text message box', { op: 'check', checked: true, target: 'checkbox:Text message' }],
  ])('%s', (action, expected) => {
    expect(read(action)).toEqual(expected);
  });

  it.each([
    'summarise this page for me',
    'get rid of the cookie banner',
    'go to "Privacy"',
    'what is',
    'type hello',
    'click',
    'go to the settings page',
    '',
    '   ',
    'select',
  ])('does not pretend to read %j', (action) => {
    expect(parseAction(action)).toBeUndefined();
  });

  it('keeps keywords inside quotes as text and variable values out of parsing', () => {
    expect(read('type "into the in box" into "Subject"')).toEqual({
      op: 'fill',
      text: 'into the in box',
      target: 'field:Subject (quoted)',
    });
    const parsed = parseAction('type {{text}} into Message');
    expect(parsed?.op).toBe('fill');
    // A value full of keywords cannot change what the action does: it is only filled in afterwards.
    if (parsed?.op !== 'fill') throw new Error('not a fill');
    expect(renderTemplate(parsed.text, { text: 'x into Password' })).toBe('x into Password');
    expect(templateSource(parsed.target.name)).toBe('Message');
  });

  it('a missing variable is an error, never typed as {{name}}', () => {
    const parsed = parseAction('type {{email}} into Email');
    if (parsed?.op !== 'fill') throw new Error('not a fill');
    expect(() => renderTemplate(parsed.text, {})).toThrow(MissingVariableError);
    expect(() => renderTemplate(parsed.text, { toString: 'x' } as Record<string, string>)).toThrow(
      MissingVariableError,
    );
  });

  it('a broken variable reference is a syntax error naming where', () => {
    expect(() => parseAction('type {{email into Email')).toThrow(ActionSyntaxError);
    expect(() => parseAction('type {{}} into Email')).toThrow(/character 6/);
    expect(actionVariables('type "{{a}} {{b}}" into {{a}}')).toEqual(['a', 'b']);
  });

  it("reads a target in a row as every place its words could split (each tried against the page's rows)", () => {
    const readings = (action: string) => {
      const parsed = parseAction(action);
      const target = parsed && 'target' in parsed ? parsed.target : undefined;
      return (target?.rows ?? []).map(
        (r) => `${r.target.kind}:${templateSource(r.target.name)} | ${templateSource(r.row)}`,
      );
    };
    expect(readings('click the Delete button for Invoice 7')).toEqual(['button:Delete | Invoice 7']);
    expect(readings('click Edit in the row of Rent')).toEqual(['any:Edit | Rent']);
    expect(readings('click Delete in the Invoice 7 row')).toEqual(['any:Delete | Invoice 7']);
    expect(readings('what is the rate for vehicles for February?')).toEqual([
      'any:rate | vehicles for February',
      'any:rate for vehicles | February',
    ]);
    expect(readings('read the status of order 1042')).toEqual(['any:status | order 1042']);
    expect(readings('type 3 into Quantity for Apples')).toEqual(['field:Quantity | Apples']);
    // Quoted words are never split; two-word names have no row.
    expect(readings('click "Terms of use"')).toEqual([]);
    expect(readings('read Terms of')).toEqual([]);
    expect(read('click the Delete button for Invoice 7')).toEqual({
      op: 'click',
      target: 'any:Delete button for Invoice 7',
    });
  });

  it('names keys as Playwright does', () => {
    expect(keyName('shift+tab')).toBe('Shift+Tab');
    expect(keyName('F5')).toBe('F5');
    expect(keyName('the escape key')).toBe('Escape');
    expect(keyName('the Submit button')).toBeUndefined();
    expect(keyName('a+b')).toBeUndefined();
  });

  it('reads a 100 KB action and adversarial input (unclosed quotes, keyword floods, brace runs) without backtracking', () => {
    const big = `type "${'x'.repeat(100_000)}" into Notes`;
    expect(read(big)?.op).toBe('fill');
    const quotes = `click ${'"a '.repeat(40_000)}`;
    const wordy = `type ${'into in '.repeat(20_000)}x`;
    const braces = `click ${'{'.repeat(50_000)}`;
    expect(parseAction(`read ${'the status of '.repeat(20_000)}x`)?.op).toBe('extract');
    expect(parseAction(quotes)?.op).toBe('click');
    expect(parseAction(wordy)?.op).toBe('fill');
    expect(() => parseAction(braces)).toThrow(ActionSyntaxError);
  });
});
