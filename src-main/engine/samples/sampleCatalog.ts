import type { JsonObject } from '../../contract/common.ts';
import type { SampleName } from '../../contract/sample.ts';

/** A sample portal as first start (or `portico samples add`) creates it, with the data its "Run the sample" sends. */
export interface SampleDefinition {
  sample: SampleName;
  endpointName: string;
  title: string;
  description: string;
  /** True for the sample whose job asks a human (its data names an option the form does not offer). */
  asksHuman: boolean;
  task: string;
  formSchema: JsonObject;
  exampleFormData: JsonObject;
}

export const SAMPLES: readonly SampleDefinition[] = [
  {
    sample: 'parking-permit',
    endpointName: 'parking-permit',
    title: 'Resident parking permit (sample)',
    description:
      'A four-step council form served by Portico itself: details, vehicle, declaration, check your answers, confirmation with a reference number.',
    asksHuman: false,
    task: "Apply for a resident parking permit with the applicant's details, then check the answers and send the application.",
    formSchema: {
      type: 'object',
      required: [
        'full_name',
        'email',
        'address_line_1',
        'town',
        'postcode',
        'registration',
        'vehicle_type',
        'zone',
        'start_date',
        'declaration',
      ],
      properties: {
        full_name: { type: 'string', title: 'Full name' },
        email: { type: 'string', format: 'email', title: 'Email address' },
        address_line_1: { type: 'string', title: 'Address line 1' },
        town: { type: 'string', title: 'Town or city' },
        postcode: { type: 'string', title: 'Postcode' },
        registration: { type: 'string', title: 'Vehicle registration number' },
        vehicle_type: { type: 'string', enum: ['Car', 'Motorcycle', 'Van'], title: 'Vehicle type' },
        zone: { type: 'string', title: 'Permit zone' },
        start_date: { type: 'string', format: 'date', title: 'Permit start date' },
        declaration: { type: 'boolean', title: 'I confirm the vehicle is registered at this address' },
      },
    },
    exampleFormData: {
      full_name: 'Ada Lovelace',
      email: 'ada@example.com',
      address_line_1: '12 Mill Lane',
      town: 'Riverside',
      postcode: 'RV1 2AB',
      registration: 'AB12 CDE',
      vehicle_type: 'Car',
      zone: 'Zone B',
      start_date: '2027-01-04',
      declaration: true,
    },
  },
  {
    sample: 'library-card',
    endpointName: 'library-card',
    title: 'Library card (sample that asks you)',
    description:
      'A one-page form whose branch list lacks the branch in the data, so the job asks you which branch to choose.',
    asksHuman: true,
    task: 'Apply for a library card for the applicant at their branch.',
    formSchema: {
      type: 'object',
      required: ['full_name', 'email', 'branch'],
      properties: {
        full_name: { type: 'string', title: 'Full name' },
        email: { type: 'string', format: 'email', title: 'Email address' },
        branch: { type: 'string', title: 'Library branch' },
      },
    },
    exampleFormData: { full_name: 'Grace Hopper', email: 'grace@example.com', branch: 'Harbour Library' },
  },
];

/** The start URL of a sample on a Portico listening at `origin`. */
/**
 * The name the sample site is opened by: Portico's browsers may not reach the service by the names its
 * API answers to (docs/security.md), so the site has its own, which answers only `/samples/…`. Browsers
 * resolve every `*.localhost` name to this machine without DNS.
 */
export const SAMPLE_SITE_HOSTNAME = 'samples.localhost';

/** A sample's start page on the sample site of the service at `origin` (its port). */
export function sampleStartUrl(origin: string, sample: SampleName): string {
  const site = new URL(origin);
  site.hostname = SAMPLE_SITE_HOSTNAME;
  return `${site.origin}/samples/${sample}/start`;
}

/** Whether `url` is some Portico origin's start URL of `sample` (the origin changes with the port). */
export function isSampleStartUrl(url: string, sample: SampleName): boolean {
  try {
    const parsed = new URL(url);
    return (
      parsed.protocol === 'http:' && parsed.pathname === `/samples/${sample}/start` && !parsed.search && !parsed.hash
    );
  } catch {
    return false;
  }
}
