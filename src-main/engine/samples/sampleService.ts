import { randomBytes } from 'node:crypto';

import { NotFoundError } from '../../base/errors.ts';
import type { SampleInfo, SampleName, SampleSubmission } from '../../contract/sample.ts';
import type { Store } from '../../store/store.ts';
import type { PortalService } from '../portalService.ts';
import { SAMPLES, isSampleStartUrl, sampleStartUrl } from './sampleCatalog.ts';
import type { Fields } from './sampleSite.ts';

export interface SampleServiceDeps {
  store: Store;
  portals: PortalService;
  now?: () => Date;
  /** Random bytes for references (tests pass a fixed source). */
  random?: (size: number) => Buffer;
}

const REFERENCE_PREFIX: Record<SampleName, string> = { 'parking-permit': 'PP', 'library-card': 'LC' };
const REFERENCE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * The sample portals and the sample site's records. Samples are data like any portal: created once per
 * organization (first start for `default`, or when asked), editable and deletable, never created again
 * after a deletion unless asked; their start URLs follow Portico's origin when the port changes.
 */
export class SampleService {
  readonly #store: Store;
  readonly #portals: PortalService;
  readonly #now: () => Date;
  readonly #random: (size: number) => Buffer;

  constructor(deps: SampleServiceDeps) {
    this.#store = deps.store;
    this.#portals = deps.portals;
    this.#now = deps.now ?? (() => new Date());
    this.#random = deps.random ?? randomBytes;
  }

  /** Creates the samples `orgId` never had (first start). */
  seed(orgId: string, origin: string): void {
    for (const def of SAMPLES) {
      if (!this.#store.samples.wasCreated(orgId, def.sample)) this.#create(orgId, origin, def.sample);
    }
  }

  /** Creates again every sample whose portal is missing in `orgId` (`portico samples add`, the console's "Add the samples"). */
  add(orgId: string, origin: string): SampleInfo[] {
    for (const def of SAMPLES) {
      if (!this.#store.portals.exists(orgId, def.endpointName)) this.#create(orgId, origin, def.sample);
    }
    return this.list(orgId);
  }

  #create(orgId: string, origin: string, sample: SampleName): void {
    const def = SAMPLES.find((d) => d.sample === sample);
    if (!def) return;
    this.#store.db.transaction(() => {
      // An endpoint of that name the user made themselves is theirs: the sample is not put over it.
      if (!this.#store.portals.exists(orgId, def.endpointName)) {
        this.#portals.create(orgId, {
          endpoint_name: def.endpointName,
          start_url: sampleStartUrl(origin, sample),
          task: def.task,
          form_schema: def.formSchema,
        });
      }
      this.#store.samples.markCreated(orgId, sample, def.endpointName, this.#now().toISOString());
    })();
  }

  /** The samples as `orgId` has them. */
  list(orgId: string): SampleInfo[] {
    const created = new Map(this.#store.samples.forOrg(orgId).map((r) => [r.sample, r.endpoint_name]));
    return SAMPLES.map((def) => {
      const endpoint = created.get(def.sample) ?? def.endpointName;
      return {
        sample: def.sample,
        endpoint_name: endpoint,
        title: def.title,
        description: def.description,
        asks_human: def.asksHuman,
        created: created.has(def.sample),
        portal_exists: created.has(def.sample) && this.#store.portals.exists(orgId, endpoint),
        example_form_data: def.exampleFormData,
      };
    });
  }

  /** Points sample portals still at a sample's start page of another origin (an earlier port) at `origin`. */
  repoint(origin: string): void {
    for (const row of this.#store.samples.all()) {
      const sample = row.sample as SampleName;
      if (!this.#store.portals.exists(row.org_id, row.endpoint_name)) continue;
      const portal = this.#portals.getRecord(row.org_id, row.endpoint_name);
      const wanted = sampleStartUrl(origin, sample);
      if (portal.start_url !== wanted && isSampleStartUrl(portal.start_url, sample)) {
        this.#portals.update(row.org_id, row.endpoint_name, { start_url: wanted });
      }
    }
  }

  /** Records an accepted application; returns its reference. */
  accept(sample: SampleName, fields: Fields): string {
    const bytes = this.#random(6);
    const reference = `${REFERENCE_PREFIX[sample]}-${[...bytes].map((b) => REFERENCE_ALPHABET[b % REFERENCE_ALPHABET.length]).join('')}`;
    this.#store.samples.addSubmission({ reference, sample, fields, received_at: this.#now().toISOString() });
    return reference;
  }

  submission(reference: string): SampleSubmission {
    const record = this.#store.samples.submission(reference);
    if (!record) throw new NotFoundError(`No sample submission with reference '${reference}'`);
    return { ...record, sample: record.sample as SampleName };
  }
}
