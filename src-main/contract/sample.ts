import { z } from 'zod';
import { JsonObject, Timestamp } from './common.ts';
import { EndpointName } from './portal.ts';

/** The samples Portico serves itself under `/samples/<name>/…` (docs/api.md, "Samples"). */
export const SAMPLE_NAMES = ['parking-permit', 'library-card'] as const;
export const SampleName = z.enum(SAMPLE_NAMES);
export type SampleName = z.infer<typeof SampleName>;

/** One sample as an organization has it. */
export const SampleInfo = z.object({
  sample: SampleName,
  endpoint_name: EndpointName,
  title: z.string(),
  description: z.string(),
  /** Its job asks a human (the data names an option the form lacks). */
  asks_human: z.boolean(),
  /** Ever created in this organization (a deleted sample stays deleted until added again). */
  created: z.boolean(),
  /** Its portal exists now. */
  portal_exists: z.boolean(),
  /** The form_data "Run the sample" sends. */
  example_form_data: JsonObject,
});
export type SampleInfo = z.infer<typeof SampleInfo>;

export const SampleList = z.object({ samples: z.array(SampleInfo) });
export type SampleList = z.infer<typeof SampleList>;

export const SampleSubmissionParams = z.object({ org_id: z.string().min(1), reference: z.string().min(1).max(64) });

/** What the sample site received for one accepted application. */
export const SampleSubmission = z.object({
  reference: z.string(),
  sample: SampleName,
  fields: z.record(z.string(), z.string()),
  received_at: Timestamp,
});
export type SampleSubmission = z.infer<typeof SampleSubmission>;
