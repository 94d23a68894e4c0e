// tier: unit
import { describe, expect, it } from 'vitest';
import { withoutSecrets } from '../../src-main/agent/model/secretValues.ts';

describe('which form_data keys are secrets (kept out of events and the console, typed but never shown)', () => {
  it('hides passwords, passphrases, PINs, codes and tokens by name, and any key the schema marks password or writeOnly', () => {
    const formData = {
      password: 'a',
      pass: 'b',
      passphrase: 'c',
      pin: '1234',
      card_cvv: '123',
      otp_code: '999999',
      api_token: 't',
      ssn: '078-05-1120',
      nickname: 'Ada',
      memorable: 'x',
    };
    const schema = { type: 'object', properties: { memorable: { type: 'string', format: 'password' } } };
    const { shown, hiddenKeys } = withoutSecrets(formData, schema);
    expect(hiddenKeys.sort()).toEqual([
      'api_token',
      'card_cvv',
      'memorable',
      'otp_code',
      'pass',
      'passphrase',
      'password',
      'pin',
      'ssn',
    ]);
    expect(shown).toEqual({ nickname: 'Ada' });
  });

  it('shows a passport number, passport dates and other personal data: they are what the job fills, not secrets', () => {
    const formData = {
      passport_number: '502135326',
      passport_issue_date: '2021-03-05',
      has_passport: 'Yes',
      full_name: 'Ada Lovelace',
      spinach: 'no',
    };
    expect(withoutSecrets(formData, {})).toEqual({ shown: formData, hiddenKeys: [] });
  });
});
