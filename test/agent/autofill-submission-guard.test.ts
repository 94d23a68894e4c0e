// tier: unit
/**
 * After a submit click whose request carried placed values and was answered 2xx/3xx, the submit button is never
 * clicked again (a second booking) unless the page shows an error or another step (issue 20; afterSubmission,
 * agent/autofill/submissionGuard.ts). Pure: no browser.
 */
import { describe, expect, it } from 'vitest';

import { afterSubmission } from '../../src-main/agent/autofill/submissionGuard.ts';

describe('afterSubmission — the form that went is never sent again', () => {
  const form = new Set(['name:a', 'name:b']);

  it('the submitted form still showing (drawn again, disabled, reset) with no error: submitted', () => {
    expect(afterSubmission({ answered: form, shown: ['name:a', 'name:b'], errors: 0 })).toBe('submitted');
    // Part of it (a section collapsed while the confirmation loads) is the same form.
    expect(afterSubmission({ answered: form, shown: ['name:b'], errors: 0 })).toBe('submitted');
  });

  it('no answered submission: the filler goes on (fills, clicks)', () => {
    expect(afterSubmission({ answered: null, shown: ['name:a', 'name:b'], errors: 0 })).toBe('go on');
  });

  it('an error showing: correcting and sending again is right', () => {
    expect(afterSubmission({ answered: form, shown: ['name:a', 'name:b'], errors: 1 })).toBe('go on');
  });

  it('a control the submitted form did not have: the next step', () => {
    expect(afterSubmission({ answered: form, shown: ['name:a', 'name:c'], errors: 0 })).toBe('go on');
  });

  it('no control at all: read as before (a confirmation, a review page)', () => {
    expect(afterSubmission({ answered: form, shown: [], errors: 0 })).toBe('go on');
  });
});
