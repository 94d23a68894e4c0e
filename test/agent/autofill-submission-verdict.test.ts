// tier: unit
/**
 * "Was the final submission seen, with the values?" decided from plain data (submissionSeen.ts
 * `submissionVerdict`): the requests the watch let leave the page, the placements and the entries —
 * no browser. The observing half (submissionWatch.ts) is covered by autofill-submission.test.ts.
 */
import { describe, expect, it } from 'vitest';

import { flattenFormData } from '../../src-main/agent/autofill/entries.ts';
import type { PlacedValue, UnplacedKey } from '../../src-main/agent/autofill/fillState.ts';
import { heldQuestion } from '../../src-main/agent/autofill/plan.ts';
import { checkRequest, type Mismatch, type PlacedCheck } from '../../src-main/agent/autofill/submissionCheck.ts';
import { submissionVerdict, type ObservedRequest } from '../../src-main/agent/autofill/submissionSeen.ts';

const ENTRIES = flattenFormData(
  { full_name: 'Ada Lovelace', email: 'ada@example.org', password: 'hunter2!', newsletter: 'Yes' },
  {
    type: 'object',
    required: ['full_name', 'email'],
    properties: {
      full_name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string', format: 'password' },
      newsletter: { type: 'string' },
    },
  },
);

function placed(key: string, given: string, secret = false): [string, PlacedValue] {
  const check: PlacedCheck = { key, label: key, given, names: [key], sent: [given], options: [], kind: 'text', secret };
  const value: PlacedValue = {
    signature: 'sig',
    controlKey: key,
    label: key,
    shown: secret ? '[secret]' : given,
    how: 'exact',
    matchedBy: 'name',
    check,
  };
  return [key, value];
}

const ALL_PLACED = new Map([
  placed('full_name', 'Ada Lovelace'),
  placed('email', 'ada@example.org'),
  placed('password', 'hunter2!', true),
  placed('newsletter', 'Yes'),
]);

function request(over: Partial<ObservedRequest> = {}): ObservedRequest {
  return {
    method: 'POST',
    url: 'http://127.0.0.1/apply?token=abc',
    fields: [
      { name: 'full_name', value: 'Ada Lovelace' },
      { name: 'email', value: 'ada@example.org' },
      { name: 'password', value: 'hunter2!' },
    ],
    bodySha: 'f00d',
    navigation: false,
    verified: ['full_name', 'email', 'password'],
    approved: [],
    status: 200,
    ...over,
  };
}

const verdict = (
  observed: ObservedRequest[],
  placedMap: ReadonlyMap<string, PlacedValue> = ALL_PLACED,
  unplaced: UnplacedKey[] = [],
) => submissionVerdict({ entries: ENTRIES, placed: placedMap, unplaced, observed, page: 'Apply' });

describe('submissionVerdict: the final submission seen, with the values (plain data)', () => {
  it('a request carrying the values, answered 200, every required key placed: seen; the receipt says what was checked', () => {
    const seen = verdict([request()]);
    expect(seen.problem).toBeNull();
    expect(seen.receipt).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1/apply?token=[redacted]',
      fields: { full_name: 'Ada Lovelace', email: 'ada@example.org', password: '[secret]' },
      body_sha256: 'f00d',
      response_status: 200,
      verified: ['full_name', 'email', 'password'],
      // Found in no request: listed, never counted as checked.
      unverified: ['newsletter'],
      approved: [],
    });
  });

  it('nothing left the page after the last click: not submitted, naming the page', () => {
    const seen = verdict([]);
    expect(seen.receipt).toBeNull();
    expect(seen.problem).toMatch(/^nothing was sent: after the last click on 'Apply' no request carrying the form/);
  });

  it('a request carrying none of the placed values (an analytics ping) is no submission', () => {
    const ping = request({ fields: [{ name: 'event', value: 'click' }], verified: [] });
    expect(verdict([ping]).problem).toBe(
      'the request to http://127.0.0.1/apply?token=[redacted] carried none of the values placed (full_name, email, password, newsletter)',
    );
  });

  it('the receipt is the last request that carried a value, not a later ping; verified counts every request of the run', () => {
    const page1 = request({ url: 'http://127.0.0.1/step1', verified: ['full_name'], fields: [] });
    const page2 = request({ url: 'http://127.0.0.1/step2', verified: ['email', 'password', 'newsletter'] });
    const ping = request({ url: 'http://127.0.0.1/ping', verified: [], fields: [], status: 204 });
    const seen = verdict([page1, page2, ping]);
    expect(seen.problem).toBeNull();
    expect(seen.receipt?.url).toBe('http://127.0.0.1/step2');
    expect(seen.receipt?.verified).toEqual(['full_name', 'email', 'password', 'newsletter']);
    expect(seen.receipt?.unverified).toEqual([]);
  });

  it('a form navigation carrying nothing (a check-your-answers page confirming) is the final submission', () => {
    const filled = request({ url: 'http://127.0.0.1/answers', verified: ['full_name', 'email'] });
    const confirm = request({
      url: 'http://127.0.0.1/confirm',
      fields: [],
      verified: [],
      navigation: true,
      status: 302,
    });
    const seen = verdict([filled, confirm]);
    expect(seen.problem).toBeNull();
    expect(seen.receipt?.url).toBe('http://127.0.0.1/confirm');
    expect(seen.receipt?.response_status).toBe(302);
  });

  it('no answer, or an error status, is not a submission', () => {
    expect(verdict([request({ status: null })]).problem).toBe(
      'the submission to http://127.0.0.1/apply?token=[redacted] got no answer from the server',
    );
    expect(verdict([request({ status: 422 })]).problem).toBe(
      'the server answered the submission to http://127.0.0.1/apply?token=[redacted] with HTTP 422',
    );
    expect(verdict([request({ status: 399 })]).problem).toBeNull();
  });

  it('a required key no control took: not submitted, naming it; one a human declined is no problem', () => {
    const partial = new Map([...ALL_PLACED].filter(([k]) => k !== 'email'));
    expect(verdict([request()], partial, [{ key: 'email', reason: 'no control on any page matched it' }]).problem).toBe(
      'required form_data keys were not placed: email',
    );
    expect(
      verdict([request()], partial, [{ key: 'email', reason: 'a human said it belongs in none of the fields offered' }])
        .problem,
    ).toBeNull();
  });

  it('no key placed anywhere: the form was never reached, whatever was sent', () => {
    const seen = verdict([request()], new Map(), [
      { key: 'full_name', reason: 'no control on any page matched it' },
      { key: 'email', reason: 'no control on any page matched it' },
    ]);
    expect(seen.problem).toBe(
      "no control on the pages it reached took a value (form_data keys full_name, email); the last page, 'Apply', has no field for them and nothing in the task says how to reach the form",
    );
  });

  it('a value a human chose to send changed is approved, not verified nor unverified', () => {
    const seen = verdict([request({ verified: ['full_name', 'password'], approved: ['email'] })]);
    expect(seen.problem).toBeNull();
    expect(seen.receipt?.approved).toEqual(['email']);
    expect(seen.receipt?.unverified).toEqual(['newsletter']);
  });

  it('secrets are masked in the receipt by value too (a secret key sent under another name)', () => {
    const seen = verdict([request({ fields: [{ name: 'pw', value: 'hunter2!' }], verified: ['password'] })]);
    expect(seen.receipt?.fields).toEqual({ pw: '[secret]' });
  });
});

describe('checkRequest: a one-time code typed into one-character boxes (kind code)', () => {
  const code: PlacedCheck = {
    key: 'code',
    label: 'Verification code',
    given: '482 913',
    names: ['otp1', 'otp2', 'otp3', 'otp4', 'otp5', 'otp6'],
    sent: ['482913'],
    options: [],
    kind: 'code',
    secret: false,
    parts: ['otp1', 'otp2', 'otp3', 'otp4', 'otp5', 'otp6'],
  };
  const perBox = (digits: string, name: (i: number) => string = (i) => `otp${i + 1}`) =>
    [...digits].map((value, i) => ({ name: name(i), value }));

  it('sent one character per field, in the boxes order (whatever the request order): verified', () => {
    expect(checkRequest(perBox('482913'), [code])).toEqual({ verified: ['code'], mismatches: [] });
    expect(checkRequest(perBox('482913').reverse(), [code])).toEqual({ verified: ['code'], mismatches: [] });
    const repeated = { ...code, names: ['code[]'], parts: Array(6).fill('code[]') };
    expect(
      checkRequest(
        perBox('482913', () => 'code[]'),
        [repeated],
      ),
    ).toEqual({ verified: ['code'], mismatches: [] });
  });

  it('the boxes spelling another code hold the request; so does a whole code of another value', () => {
    expect(checkRequest(perBox('482931'), [code]).mismatches).toEqual([
      { key: 'code', label: 'Verification code', sent: '482931', given: '482 913', secret: false },
    ]);
    expect(checkRequest([{ name: 'otp1', value: '482914' }], [code]).mismatches).toHaveLength(1);
  });

  it('sent whole (a hidden field, a JSON API naming it otherwise): verified as one value; absent: neither', () => {
    expect(checkRequest([{ name: 'verification', value: '482913' }], [code]).verified).toEqual(['code']);
    expect(checkRequest([{ name: 'email', value: 'a@b.org' }], [code])).toEqual({ verified: [], mismatches: [] });
  });
});

describe('heldQuestion: what a held request asks (Send / Correct / Cancel) and the error without a human', () => {
  const changed: Mismatch = {
    key: 'mobile_phone',
    label: 'Mobile phone',
    sent: '(150) 355-5018',
    given: '+1 503 555 0182',
    secret: false,
  };

  it('names the key, what the page was about to send and what was given', () => {
    const held = heldQuestion(changed);
    expect(held.question).toMatchObject({
      question: "About to send '(150) 355-5018' for mobile_phone; you gave '+1 503 555 0182'.",
      options: ['Send', 'Correct', 'Cancel'],
    });
    expect(held.failure).toBe(
      "The form was about to send '(150) 355-5018' for form_data 'mobile_phone' ('Mobile phone') but form_data gave '+1 503 555 0182'; the request was held and not sent (enable human_in_the_loop to be asked)",
    );
    expect(held.correct.question).toBe("What should be typed into 'Mobile phone' for mobile_phone?");
  });

  it('never quotes a secret', () => {
    const held = heldQuestion({ ...changed, key: 'pin', label: 'PIN', sent: '1235', given: '1234', secret: true });
    const texts = JSON.stringify(held);
    expect(texts).not.toContain('1235');
    expect(texts).not.toContain('1234');
    expect(held.question.question).toBe('About to send a different value for pin; you gave another.');
  });
});
