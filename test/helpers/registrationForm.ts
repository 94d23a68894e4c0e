// The six-field registration form (test/fixtures/forms/registration.html) that the browser-host tests and
// `npm run bench grid` fill with builtin:autofill: its portal body, one applicant's data, what the form gets.

export const REGISTRATION_PATH = '/forms/registration.html';
export const REGISTRATION_SUBMIT = '/submit/registration';

export const registrationSchema = {
  type: 'object',
  required: ['full_name', 'email', 'date_of_birth', 'country', 'consent'],
  properties: {
    full_name: { type: 'string', title: 'Full name' },
    email: { type: 'string', format: 'email' },
    phone: { type: 'string' },
    date_of_birth: { type: 'string', format: 'date' },
    country: { type: 'string', title: 'Country' },
    consent: { type: 'boolean', title: 'I agree to the terms' },
  },
};

/** The portal body for `endpoint_name`, its start URL on `origin` (a form server reachable from every host). */
export function registrationPortal(
  endpointName: string,
  origin: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    endpoint_name: endpointName,
    start_url: `${origin}${REGISTRATION_PATH}`,
    task: 'Register for the open day',
    form_schema: registrationSchema,
    ...extra,
  };
}

/** Applicant `n`'s form_data: distinct names so each submission can be told apart. */
export function registrationData(n: number): Record<string, unknown> {
  return {
    full_name: `Applicant ${n}`,
    email: `applicant${n}@example.org`,
    phone: `0161 496 ${String(n).padStart(4, '0')}`,
    date_of_birth: '1990-12-10',
    country: 'Ireland',
    consent: true,
  };
}

/** The fields the form receives for applicant `n`. */
export function registrationFields(n: number): Record<string, string> {
  return {
    full_name: `Applicant ${n}`,
    email: `applicant${n}@example.org`,
    phone: `0161 496 ${String(n).padStart(4, '0')}`,
    date_of_birth: '1990-12-10',
    country: 'IE',
    consent: 'yes',
  };
}
