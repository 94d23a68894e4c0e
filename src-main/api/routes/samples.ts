import { OrgIdParam } from '../../contract/common.ts';
import { SampleList, SampleSubmission, SampleSubmissionParams } from '../../contract/sample.ts';
import type { SampleService } from '../../engine/samples/sampleService.ts';
import type { RouteTable } from '../routeTable.ts';

/** The sample portals of an organization and what the sample site received (docs/api.md, "Samples"). */
export function addSampleRoutes(routes: RouteTable, samples: SampleService, origin: () => string): void {
  routes.add({
    method: 'GET', url: '/sample-portals/:org_id', tag: 'samples', summary: 'List the sample portals and the data "Run the sample" sends', auth: 'org',
    params: OrgIdParam, response: SampleList,
    handler: ({ params }) => ({ samples: samples.list(params.org_id) }),
  });
  routes.add({
    method: 'POST', url: '/sample-portals/:org_id', tag: 'samples', summary: 'Create again the sample portals that are missing', auth: 'org',
    params: OrgIdParam, response: SampleList,
    handler: ({ params }) => ({ samples: samples.add(params.org_id, origin()) }),
  });
  routes.add({
    method: 'GET', url: '/sample-portals/:org_id/submissions/:reference', tag: 'samples', summary: 'What the sample site received for one application', auth: 'org',
    params: SampleSubmissionParams, response: SampleSubmission,
    handler: ({ params }) => samples.submission(params.reference),
  });
}
