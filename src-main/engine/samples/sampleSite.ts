/**
 * The sample site Portico serves itself under `/samples/…` so a first job works offline: two small
 * council forms written the way real ones are (labels for people, server-side validation, an error
 * summary, a check-your-answers page, a confirmation with a reference number). Pure: a request in
 * (method, path, fields), a page or a redirect out; the caller records accepted applications.
 *
 * - `parking-permit`: a resident parking permit in four steps — your details; your vehicle (a radio
 *   group, a select whose submitted values differ from its labels, a day/month/year date); a
 *   declaration checkbox; check your answers — then the confirmation.
 * - `library-card`: one page, whose "Library branch" select lacks the branch the sample data names,
 *   so the job asks a human which branch to choose (the HITL sample).
 */
import type { SampleName } from '../../contract/sample.ts';

export type Fields = Record<string, string>;

export interface SampleAnswer {
  status: number;
  html?: string;
  /** A 303 redirect target. */
  location?: string;
  /** Set when the request was a complete, valid application: the caller stores it and redirects to `location`. */
  accepted?: { sample: SampleName; fields: Fields };
}

interface Choice {
  value: string;
  label: string;
}

const VEHICLE_TYPES: Choice[] = [
  { value: 'car', label: 'Car' },
  { value: 'motorcycle', label: 'Motorcycle' },
  { value: 'van', label: 'Van' },
];
const ZONES: Choice[] = [
  { value: 'A', label: 'Zone A' },
  { value: 'B', label: 'Zone B' },
  { value: 'C', label: 'Zone C' },
];
const BRANCHES: Choice[] = [
  { value: 'central', label: 'Central Library' },
  { value: 'riverside', label: 'Riverside Library' },
  { value: 'hillcrest', label: 'Hillcrest Library' },
];

function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#0b0c0c}header{background:#0b0c0c;color:#fff;padding:12px 24px;font-weight:700}
main{max-width:640px;margin:24px auto;padding:0 16px}label,legend{display:block;font-weight:700;margin-top:16px}.hint{color:#505a5f}
input[type=text],input[type=email],select{font:inherit;padding:6px;border:2px solid #0b0c0c;width:100%;box-sizing:border-box}
.date input{width:5em;display:inline-block;margin-right:8px}.date label{font-weight:400}.date div{display:inline-block}
button{font:inherit;background:#00703c;color:#fff;border:0;padding:8px 16px;margin-top:24px;cursor:pointer}
.error-summary{border:4px solid #d4351c;padding:12px}.error{color:#d4351c;font-weight:700}.govuk-panel{background:#00703c;color:#fff;padding:24px;text-align:center}
dl{display:grid;grid-template-columns:1fr 2fr;gap:8px}dt{font-weight:700}`;

/** The Content-Security-Policy of every sample page: no script at all, forms post only to the sample itself. */
export const SAMPLE_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function page(title: string, body: string, council: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} – ${esc(council)}</title><style>${STYLE}</style></head>
<body><header>${esc(council)} <small>(a Portico sample site)</small></header><main>${body}</main></body></html>`;
}

function errorSummary(errors: Fields): string {
  const items = Object.entries(errors)
    .map(([name, text]) => `<li><a href="#${esc(name)}">${esc(text)}</a></li>`)
    .join('');
  return items ? `<div class="error-summary" role="alert"><h2>There is a problem</h2><ul>${items}</ul></div>` : '';
}

function fieldError(errors: Fields, name: string): string {
  return errors[name]
    ? `<p class="error" id="${esc(name)}-error"><span class="visually-hidden">Error:</span> ${esc(errors[name])}</p>`
    : '';
}

function textInput(
  name: string,
  label: string,
  values: Fields,
  errors: Fields,
  options: { type?: string; hint?: string; autocomplete?: string } = {},
): string {
  const hint = options.hint ? `<div class="hint" id="${name}-hint">${esc(options.hint)}</div>` : '';
  const described = [options.hint ? `${name}-hint` : '', errors[name] ? `${name}-error` : ''].filter(Boolean).join(' ');
  return `<label for="${name}">${esc(label)}</label>${hint}${fieldError(errors, name)}
<input type="${options.type ?? 'text'}" id="${name}" name="${name}" value="${esc(values[name] ?? '')}"${described ? ` aria-describedby="${described}"` : ''}${options.autocomplete ? ` autocomplete="${options.autocomplete}"` : ''}>`;
}

function select(name: string, label: string, choices: Choice[], values: Fields, errors: Fields, hint?: string): string {
  const options = choices
    .map(
      (c) => `<option value="${esc(c.value)}"${values[name] === c.value ? ' selected' : ''}>${esc(c.label)}</option>`,
    )
    .join('');
  return `<label for="${name}">${esc(label)}</label>${hint ? `<div class="hint">${esc(hint)}</div>` : ''}${fieldError(errors, name)}
<select id="${name}" name="${name}"><option value="">Choose…</option>${options}</select>`;
}

function radios(name: string, legend: string, choices: Choice[], values: Fields, errors: Fields): string {
  const items = choices
    .map(
      (c, i) =>
        `<div><input type="radio" id="${name}-${i}" name="${name}" value="${esc(c.value)}"${values[name] === c.value ? ' checked' : ''}> <label for="${name}-${i}" style="display:inline;font-weight:400">${esc(c.label)}</label></div>`,
    )
    .join('');
  return `<fieldset id="${name}"><legend>${esc(legend)}</legend>${fieldError(errors, name)}${items}</fieldset>`;
}

function dateInput(name: string, legend: string, values: Fields, errors: Fields, hint: string): string {
  const part = (suffix: string, label: string, width: number) =>
    `<div><label for="${name}-${suffix}">${label}</label><input type="text" inputmode="numeric" id="${name}-${suffix}" name="${name}-${suffix}" value="${esc(values[`${name}-${suffix}`] ?? '')}" size="${width}"></div>`;
  return `<fieldset id="${name}" class="date"><legend>${esc(legend)}</legend><div class="hint">${esc(hint)}</div>${fieldError(errors, name)}
${part('day', 'Day', 2)}${part('month', 'Month', 2)}${part('year', 'Year', 4)}</fieldset>`;
}

/** Every answer carried forward as hidden inputs (the site keeps no session). */
function hidden(values: Fields, except: readonly string[]): string {
  return Object.entries(values)
    .filter(([k]) => !except.includes(k))
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
}

function form(action: string, values: Fields, ownFields: readonly string[], body: string, button = 'Continue'): string {
  return `<form method="post" action="${action}" novalidate>${hidden(values, ownFields)}${body}<button type="submit">${esc(button)}</button></form>`;
}

const labelOf = (choices: Choice[], value: string | undefined) => choices.find((c) => c.value === value)?.label ?? '';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const POSTCODE = /^[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$/i;
const REGISTRATION = /^[A-Z0-9 ]{2,8}$/i;

// ---------------------------------------------------------------- parking permit

const PP = '/samples/parking-permit';
const PP_COUNCIL = 'Riverside Borough Council';
const DETAILS = ['full_name', 'email', 'address_line_1', 'town', 'postcode'] as const;
const VEHICLE = [
  'registration',
  'vehicle_type',
  'zone',
  'start_date-day',
  'start_date-month',
  'start_date-year',
] as const;
const DECLARATION = ['declaration'] as const;

function detailsErrors(v: Fields): Fields {
  const e: Fields = {};
  if (!v.full_name?.trim()) e.full_name = 'Enter your full name';
  if (!EMAIL.test(v.email ?? '')) e.email = 'Enter an email address in the correct format, like name@example.com';
  if (!v.address_line_1?.trim()) e.address_line_1 = 'Enter the first line of your address';
  if (!v.town?.trim()) e.town = 'Enter your town or city';
  if (!POSTCODE.test(v.postcode?.trim() ?? '')) e.postcode = 'Enter a real postcode, like RV1 2AB';
  return e;
}

/** The day/month/year parts as an ISO date, or null when they are not a real date. */
function isoDate(v: Fields, name: string): string | null {
  const part = (p: string): number =>
    /^\s*\d{1,4}\s*$/.test(v[`${name}-${p}`] ?? '') ? Number(v[`${name}-${p}`]) : Number.NaN;
  const [d, m, y] = [part('day'), part('month'), part('year')];
  if (Number.isNaN(d) || Number.isNaN(m) || Number.isNaN(y) || y < 1900 || y > 2200) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

function vehicleErrors(v: Fields): Fields {
  const e: Fields = {};
  if (!REGISTRATION.test(v.registration?.trim() ?? ''))
    e.registration = 'Enter a vehicle registration number, like AB12 CDE';
  if (!VEHICLE_TYPES.some((c) => c.value === v.vehicle_type)) e.vehicle_type = 'Select the type of vehicle';
  if (!ZONES.some((c) => c.value === v.zone)) e.zone = 'Select a permit zone';
  if (!isoDate(v, 'start_date')) e.start_date = 'Permit start date must be a real date';
  return e;
}

function declarationErrors(v: Fields): Fields {
  return v.declaration === 'yes' ? {} : { declaration: 'Confirm the declaration to continue' };
}

function detailsPage(v: Fields, e: Fields): string {
  return page(
    'Your details',
    `${errorSummary(e)}<span class="hint">Apply for a resident parking permit · Step 1 of 3</span><h1>Your details</h1>${form(
      `${PP}/vehicle`,
      v,
      DETAILS,
      `
${textInput('full_name', 'Full name', v, e, { autocomplete: 'name' })}
${textInput('email', 'Email address', v, e, { type: 'email', hint: 'We will send your permit confirmation here', autocomplete: 'email' })}
${textInput('address_line_1', 'Address line 1', v, e, { autocomplete: 'address-line1' })}
${textInput('town', 'Town or city', v, e, { autocomplete: 'address-level2' })}
${textInput('postcode', 'Postcode', v, e, { autocomplete: 'postal-code' })}`,
    )}`,
    PP_COUNCIL,
  );
}

function vehiclePage(v: Fields, e: Fields): string {
  return page(
    'Your vehicle',
    `${errorSummary(e)}<span class="hint">Step 2 of 3</span><h1>Your vehicle</h1>${form(
      `${PP}/declaration`,
      v,
      VEHICLE,
      `
${textInput('registration', 'Vehicle registration number', v, e, { hint: 'For example, AB12 CDE' })}
${radios('vehicle_type', 'Vehicle type', VEHICLE_TYPES, v, e)}
${select('zone', 'Permit zone', ZONES, v, e, 'The zone is on the signs in your street')}
${dateInput('start_date', 'Permit start date', v, e, 'For example, 1 12 2026')}`,
    )}`,
    PP_COUNCIL,
  );
}

function declarationPage(v: Fields, e: Fields): string {
  return page(
    'Declaration',
    `${errorSummary(e)}<span class="hint">Step 3 of 3</span><h1>Declaration</h1>${form(
      `${PP}/check`,
      v,
      DECLARATION,
      `
${fieldError(e, 'declaration')}<div id="declaration"><input type="checkbox" id="declaration-yes" name="declaration" value="yes"${v.declaration === 'yes' ? ' checked' : ''}>
<label for="declaration-yes" style="display:inline">I confirm the vehicle is registered at this address</label></div>`,
    )}`,
    PP_COUNCIL,
  );
}

function checkPage(v: Fields): string {
  const rows: Array<[string, string]> = [
    ['Full name', v.full_name ?? ''],
    ['Email address', v.email ?? ''],
    ['Address', `${v.address_line_1 ?? ''}, ${v.town ?? ''} ${v.postcode ?? ''}`],
    ['Vehicle registration number', v.registration ?? ''],
    ['Vehicle type', labelOf(VEHICLE_TYPES, v.vehicle_type)],
    ['Permit zone', labelOf(ZONES, v.zone)],
    ['Permit start date', isoDate(v, 'start_date') ?? ''],
    ['Declaration', 'Confirmed'],
  ];
  const list = rows.map(([k, value]) => `<dt>${esc(k)}</dt><dd>${esc(value)}</dd>`).join('');
  return page(
    'Check your answers',
    `<h1>Check your answers before sending your application</h1><dl>${list}</dl>
${form(`${PP}/submit`, v, [], '<h2>Now send your application</h2><p>By sending this application you confirm the details are correct.</p>', 'Accept and send')}`,
    PP_COUNCIL,
  );
}

function parkingPermit(method: string, step: string, v: Fields): SampleAnswer {
  const ok = (html: string): SampleAnswer => ({ status: 200, html });
  const invalid = (html: string): SampleAnswer => ({ status: 422, html });
  if (method === 'GET' && step === 'start') return ok(detailsPage({}, {}));
  if (method !== 'POST') return { status: 404 };
  const details = detailsErrors(v);
  if (step === 'vehicle')
    return Object.keys(details).length ? invalid(detailsPage(v, details)) : ok(vehiclePage(v, {}));
  if (Object.keys(details).length) return invalid(detailsPage(v, details));
  const vehicle = vehicleErrors(v);
  if (step === 'declaration')
    return Object.keys(vehicle).length ? invalid(vehiclePage(v, vehicle)) : ok(declarationPage(v, {}));
  if (Object.keys(vehicle).length) return invalid(vehiclePage(v, vehicle));
  const declaration = declarationErrors(v);
  if (step === 'check')
    return Object.keys(declaration).length ? invalid(declarationPage(v, declaration)) : ok(checkPage(v));
  if (Object.keys(declaration).length) return invalid(declarationPage(v, declaration));
  if (step !== 'submit') return { status: 404 };
  const fields: Fields = {
    full_name: (v.full_name ?? '').trim(),
    email: (v.email ?? '').trim(),
    address_line_1: (v.address_line_1 ?? '').trim(),
    town: (v.town ?? '').trim(),
    postcode: (v.postcode ?? '').trim().toUpperCase(),
    registration: (v.registration ?? '').trim().toUpperCase(),
    vehicle_type: v.vehicle_type ?? '',
    zone: v.zone ?? '',
    start_date: isoDate(v, 'start_date') ?? '',
    declaration: 'yes',
  };
  return { status: 303, accepted: { sample: 'parking-permit', fields } };
}

// ---------------------------------------------------------------- library card

const LC = '/samples/library-card';
const LC_COUNCIL = 'Riverside Libraries';
const LC_FIELDS = ['full_name', 'email', 'branch'] as const;

function libraryErrors(v: Fields): Fields {
  const e: Fields = {};
  if (!v.full_name?.trim()) e.full_name = 'Enter your full name';
  if (!EMAIL.test(v.email ?? '')) e.email = 'Enter an email address in the correct format, like name@example.com';
  if (!BRANCHES.some((c) => c.value === v.branch)) e.branch = 'Select the branch where you will collect your card';
  return e;
}

function libraryPage(v: Fields, e: Fields): string {
  return page(
    'Join the library',
    `${errorSummary(e)}<h1>Join the library</h1><p>Get a free library card. Collect it from the branch you choose.</p>${form(
      `${LC}/submit`,
      v,
      LC_FIELDS,
      `
${textInput('full_name', 'Full name', v, e, { autocomplete: 'name' })}
${textInput('email', 'Email address', v, e, { type: 'email', autocomplete: 'email' })}
${select('branch', 'Library branch', BRANCHES, v, e, 'Where you will collect your card')}`,
      'Apply for a card',
    )}`,
    LC_COUNCIL,
  );
}

function libraryCard(method: string, step: string, v: Fields): SampleAnswer {
  if (method === 'GET' && step === 'start') return { status: 200, html: libraryPage({}, {}) };
  if (method !== 'POST' || step !== 'submit') return { status: 404 };
  const errors = libraryErrors(v);
  if (Object.keys(errors).length) return { status: 422, html: libraryPage(v, errors) };
  return {
    status: 303,
    accepted: {
      sample: 'library-card',
      fields: { full_name: (v.full_name ?? '').trim(), email: (v.email ?? '').trim(), branch: v.branch ?? '' },
    },
  };
}

// ---------------------------------------------------------------- both

/** The confirmation page of an accepted application. */
export function confirmationPage(sample: SampleName, reference: string): string {
  const [title, council, next] =
    sample === 'parking-permit'
      ? ['Application complete', PP_COUNCIL, 'We will email your permit within 2 working days.']
      : ['Library card application received', LC_COUNCIL, 'We will email you when your card is ready to collect.'];
  return page(
    title,
    `<div class="govuk-panel govuk-panel--confirmation"><h1 class="govuk-panel__title">${esc(title)}</h1>
<div class="govuk-panel__body">Your reference number<br><strong>${esc(reference)}</strong></div></div><p>${esc(next)}</p>`,
    council,
  );
}

export function notFoundPage(): string {
  return page(
    'Page not found',
    '<h1>Page not found</h1><p>This sample has no such page. <a href="/samples/parking-permit/start">Start the parking permit sample</a>.</p>',
    'Portico samples',
  );
}

/** Answers one request to `/samples/<sample>/<step>`. */
export function answerSample(method: string, sample: string, step: string, fields: Fields): SampleAnswer {
  if (sample === 'parking-permit') return parkingPermit(method, step, fields);
  if (sample === 'library-card') return libraryCard(method, step, fields);
  return { status: 404 };
}
