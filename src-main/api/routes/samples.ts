import type { OperationsTagged } from '../../contract/operations.ts';
import type { SampleService } from '../../engine/samples/sampleService.ts';
import type { Handlers } from '../operationTable.ts';

/** The sample portals of an organization and what the sample site received (docs/api.md, "Samples"). */
export function sampleHandlers(samples: SampleService, origin: () => string): Handlers<OperationsTagged<'samples'>> {
  return {
    listSamples: ({ params }) => ({ samples: samples.list(params.org_id) }),
    addSamples: ({ params }) => ({ samples: samples.add(params.org_id, origin()) }),
    getSampleSubmission: ({ params }) => samples.submission(params.reference),
  };
}
