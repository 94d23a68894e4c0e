import { deepFreeze } from '../../base/deepFreeze.ts';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, NotFoundError, ValidationError } from '../../base/errors.ts';
import { newId, newSecretToken } from '../../base/ids.ts';
import type {
  JobActionResponse,
  JobListQuery,
  JobStartRequest,
  JobStatusResponse,
  JobSummary,
} from '../../contract/job.ts';
import { FINAL_JOB_STATUSES } from '../../contract/job.ts';
import { messages } from '../../contract/messages.ts';
import { credentialMessages } from '../../contract/credential.ts';
import {
  BUILTIN_AUTOFILL,
  DEFAULT_ORCHESTRATOR_MODEL,
  DEFAULT_VISION_MODEL,
  ORCHESTRATOR_MODELS,
  VISION_MODELS,
  isOrchestratorModel,
  isVisionModel,
  LOCAL_MODEL_PLACEHOLDER,
} from '../../contract/models.ts';
import type { JobRecord } from '../../store/jobs.ts';
import type { Store } from '../../store/store.ts';
import { describeSchemaErrors, type JsonSchemaCompiler } from '../../base/jsonSchema.ts';
import { withoutSecrets } from '../../agent/model/secretValues.ts';
import { LiveViewHub } from '../liveViewHub.ts';
import type { PortalService } from '../portalService.ts';
import type { JobScheduler } from './jobScheduler.ts';
import { downloadsDir, recordingPath, screenshotsDir } from './jobRun.ts';
import type { z } from 'zod';

export const DEFAULT_MAX_TURNS = 200;
export const DEFAULT_TIMEOUT_MINUTES = 30;

/** Which orchestrators this build can run, and whether a model's provider is configured. */
export interface ModelAvailability {
  /** Whether an agent exists for this orchestrator id. */
  canRun(model: string): boolean;
  /** Whether the provider of a model id has a key (or needs none). */
  hasKey(model: string): Promise<boolean>;
  /** What a model still lacks, as an instruction (e.g. which command sets its key). */
  missing?(model: string): Promise<string | undefined>;
}

export interface JobServiceDeps {
  store: Store;
  portals: PortalService;
  schemas: JsonSchemaCompiler;
  scheduler: JobScheduler;
  models: ModelAvailability;
  artifactsDir: string;
  /** The server's base URL, known once it listens. */
  baseUrl(): string;
  /** Live public sessions, for `browser_session_id` (absent: every session id is not found). */
  sessions?: {
    isActiveInOrg(sessionId: string, orgId: string): boolean;
    workspaceOf(sessionId: string): string | undefined;
  };
  /** Why no browser host could ever take a job asking for these labels (engine/limits/browserSlots.ts), or undefined. */
  unplaceable?: (labels: readonly string[]) => string | undefined;
  /** Stored credentials, for `credential_id` (absent: every credential id is not found). */
  credentials?: { requireForOrg(orgId: string, credentialId: string): { workspace_id: string } };
  /** The operator's recording default, for jobs whose request and portal do not say (default false). */
  recordVideoDefault?: () => boolean;
  /** Document bundles, for `document_bundle_id`: `get` throws 404 for a bundle not of this org (absent: every bundle id is not found). */
  documents?: { get(orgId: string, id: string): unknown };
  /** The org's artifacts disk quota: a start while it is full is 413 (engine/limits/diskQuotas.ts). */
  artifactsQuota?: { assertRoom(kind: 'artifacts', orgId: string): Promise<void> };
}

/** Jobs whose last status answer is kept (see JobService.status). */
const STATUS_CACHE_JOBS = 256;

/** Job start validation, status, listing, answers and cancellation (§4.2, local-service §3). */
export class JobService {
  readonly #deps: JobServiceDeps;
  /** The last status answer of recently polled jobs, with the database generation it was read at. */
  readonly #statuses = new Map<
    string,
    { key: string; orgId: string; endpointName: string; status: JobStatusResponse }
  >();

  constructor(deps: JobServiceDeps) {
    this.#deps = deps;
  }

  async #chooseOrchestrator(requested: string | undefined): Promise<string> {
    if (requested === undefined) {
      return this.#deps.models.canRun(DEFAULT_ORCHESTRATOR_MODEL) &&
        (await this.#deps.models.hasKey(DEFAULT_ORCHESTRATOR_MODEL))
        ? DEFAULT_ORCHESTRATOR_MODEL
        : BUILTIN_AUTOFILL;
    }
    if (!isOrchestratorModel(requested)) {
      throw new ValidationError(
        `body.orchestrator_model: '${requested}' is not allowed; use one of ${[...ORCHESTRATOR_MODELS, BUILTIN_AUTOFILL, LOCAL_MODEL_PLACEHOLDER].join(', ')}`,
      );
    }
    if (!this.#deps.models.canRun(requested)) {
      throw new ValidationError(
        `body.orchestrator_model: '${requested}' needs the model-driven agent, which this version of Portico does not include yet; use ${BUILTIN_AUTOFILL}`,
      );
    }
    if (!(await this.#deps.models.hasKey(requested))) {
      const missing =
        (await this.#deps.models.missing?.(requested)) ??
        `no API key; run \`portico provider set-key ${requested.split(':')[0]}\``;
      throw new ValidationError(`body.orchestrator_model: model '${requested}' is not configured: ${missing}`);
    }
    return requested;
  }

  /** Validates everything, stores the job as queued and hands it to the scheduler. */
  async start(orgId: string, endpointName: string, request: JobStartRequest): Promise<{ job_id: string }> {
    const portal = this.#deps.portals.getRecord(orgId, endpointName);
    const hasData = request.form_data !== undefined;
    const hasBundle = request.document_bundle_id !== undefined;
    if (hasData === hasBundle) {
      throw new ValidationError(
        hasData
          ? 'body: form_data and document_bundle_id are mutually exclusive; send exactly one'
          : 'body: send exactly one of form_data or document_bundle_id',
      );
    }
    if (hasBundle) {
      // The bundle's form_data is read when the job runs (it may still be processing); here it only has to be the org's.
      if (!this.#deps.documents)
        throw new NotFoundError(`Document bundle '${String(request.document_bundle_id)}' not found`);
      this.#deps.documents.get(orgId, String(request.document_bundle_id));
    } else {
      const validate = this.#deps.schemas.compileObjectSchema(portal.form_schema, 'portal.form_schema');
      if (!validate(request.form_data))
        throw new ValidationError(describeSchemaErrors('body.form_data', validate.errors));
    }
    const visionModel = request.vision_model ?? DEFAULT_VISION_MODEL;
    if (!isVisionModel(visionModel)) {
      throw new ValidationError(
        `body.vision_model: '${visionModel}' is not allowed; use one of ${[...VISION_MODELS, LOCAL_MODEL_PLACEHOLDER].join(', ')}`,
      );
    }
    await this.#deps.artifactsQuota?.assertRoom('artifacts', orgId);
    const orchestrator = await this.#chooseOrchestrator(request.orchestrator_model);
    // Only the model-driven agent calls a vision model. A named one must be usable now; the default
    // is checked when first used, so a local-only setup need not configure a hosted vision model.
    if (
      orchestrator !== BUILTIN_AUTOFILL &&
      request.vision_model !== undefined &&
      !(await this.#deps.models.hasKey(visionModel))
    ) {
      const missing =
        (await this.#deps.models.missing?.(visionModel)) ??
        `no API key; run \`portico provider set-key ${visionModel.split(':')[0]}\``;
      throw new ValidationError(`body.vision_model: model '${visionModel}' is not configured: ${missing}`);
    }
    // The job's session wins over the portal's.
    const sessionId = request.browser_session_id ?? portal.browser_session_id ?? undefined;
    if (sessionId !== undefined) {
      if (request.profile_id !== undefined || request.proxy !== undefined) {
        throw new ValidationError(
          request.browser_session_id !== undefined
            ? "body.browser_session_id: a job in a session uses that session's browser; leave out profile_id and proxy"
            : `body: portal '${endpointName}' runs its jobs in its browser_session_id, whose browser they use; leave out profile_id and proxy`,
        );
      }
      if (!this.#deps.sessions?.isActiveInOrg(sessionId, orgId)) throw new NotFoundError(messages.sessionNotFound);
    }
    // The job's credential wins over the portal's; either must still be one of the org's.
    const credentialId = request.credential_id ?? portal.credential_id ?? undefined;
    if (credentialId !== undefined) {
      if (!this.#deps.credentials) throw new NotFoundError(credentialMessages.notFound);
      const credential = this.#deps.credentials.requireForOrg(orgId, credentialId);
      // A session's browser is its workspace's: whoever holds its cdp_url sees what is typed there, so
      // only that workspace's own credentials may be typed into it (docs/security.md).
      const sessionWorkspace = sessionId === undefined ? undefined : this.#deps.sessions?.workspaceOf(sessionId);
      if (sessionWorkspace !== undefined && sessionWorkspace !== credential.workspace_id) {
        const field =
          request.credential_id !== undefined ? 'body.credential_id' : `portal '${endpointName}' credential_id`;
        throw new ValidationError(
          `${field}: credential '${credentialId}' belongs to workspace '${credential.workspace_id}', but the job runs in session '${sessionId}' of workspace '${sessionWorkspace}'; a job in a session may use only its workspace's credentials`,
        );
      }
    }
    // In a session the session's browser is used (with its own profile, if any), never the portal's profile.
    const profileId = sessionId !== undefined ? null : (request.profile_id ?? portal.profile_id);
    if (profileId && !this.#deps.store.profiles.getForOrg(orgId, profileId)) {
      throw new ValidationError(`body.profile_id: no browser profile '${profileId}' in this organization`);
    }
    // A job in a session runs where its session's browser is; any other on a host carrying these labels.
    if (sessionId !== undefined && request.browser_host_labels !== undefined) {
      throw new ValidationError(
        "body.browser_host_labels: a job in a session uses that session's browser, wherever it runs; leave out browser_host_labels",
      );
    }
    const hostLabels = sessionId !== undefined ? null : (request.browser_host_labels ?? portal.browser_host_labels);
    const unplaceable = hostLabels ? this.#deps.unplaceable?.(hostLabels) : undefined;
    if (unplaceable)
      throw new ValidationError(
        `${request.browser_host_labels !== undefined ? 'body.browser_host_labels' : `portal '${endpointName}' browser_host_labels`}: ${unplaceable}`,
      );
    const { password, ...proxy } = request.proxy ?? { server: '' };
    const job = this.#deps.store.jobs.insert({
      id: newId(),
      org_id: orgId,
      endpoint_name: endpointName,
      portal_id: portal.id,
      portal: {
        start_url: portal.start_url,
        task: portal.task,
        form_schema: portal.form_schema,
        output_schema: portal.output_schema,
        humanized_urls: portal.humanized_urls,
        webhook_url: portal.webhook_url,
        skill_ids: portal.skill_ids,
        assist_model: portal.assist_model,
      },
      options: {
        form_data: request.form_data ?? null,
        document_bundle_id: request.document_bundle_id ?? null,
        max_turns: request.max_turns ?? DEFAULT_MAX_TURNS,
        timeout_minutes: request.timeout_minutes ?? DEFAULT_TIMEOUT_MINUTES,
        save_profile: request.save_profile ?? true,
        human_in_the_loop: request.human_in_the_loop ?? false,
        browser_session_id: sessionId ?? null,
        credential_id: credentialId ?? null,
        // The job option wins; otherwise the portal's setting decides.
        replay: request.replay ?? portal.replay_enabled,
        record_video: request.record_video ?? portal.record_video ?? this.#deps.recordVideoDefault?.() ?? false,
        proxy: request.proxy ? { ...proxy, has_password: password !== undefined } : null,
        ...(hostLabels && { browser_host_labels: hostLabels }),
      },
      orchestrator_model: orchestrator,
      vision_model: visionModel,
      profile_id: profileId,
      view_token: newSecretToken('lv_'),
    });
    // What the job was started with, so its page can show the input and start it again the same way.
    // Secret values (passwords, PINs, tokens…) never go into events: their keys are listed instead, to be typed again.
    const { form_data, max_turns, timeout_minutes, human_in_the_loop } = job.options;
    const visible =
      form_data === null ? { shown: null, hiddenKeys: [] } : withoutSecrets(form_data, portal.form_schema);
    this.#deps.store.jobs.appendEvent(job.id, 'queued', {
      form_data: visible.shown,
      hidden_keys: visible.hiddenKeys,
      max_turns,
      timeout_minutes,
      human_in_the_loop,
    });
    this.#deps.scheduler.enqueue(job.id, password);
    return { job_id: job.id };
  }

  /** A job of this org and portal, or 404 `Job not found`. */
  getRecord(orgId: string, endpointName: string, jobId: string): JobRecord {
    const job = this.#deps.store.jobs.get(jobId);
    if (!job || job.org_id !== orgId || job.endpoint_name !== endpointName)
      throw new NotFoundError(messages.jobNotFound);
    return job;
  }

  /** The status response of local-service.md §3. */
  toStatus(job: JobRecord): JobStatusResponse {
    return { ...this.toSummary(job), result: job.result, events: this.#deps.store.jobs.events(job.id) };
  }

  /** The status response without `result` and `events` (the light list: no history read per job). */
  toSummary(job: JobRecord): JobSummary {
    const base = this.#deps.baseUrl();
    const task = `${base}/task/${encodeURIComponent(job.org_id)}/${encodeURIComponent(job.endpoint_name)}`;
    const live = job.status === 'running' || job.status === 'waiting_for_input';
    return {
      job_id: job.id,
      portal_id: `${job.org_id}/${job.endpoint_name}`,
      status: job.status,
      error: job.error,
      created_at: job.created_at,
      updated_at: job.updated_at,
      started_at: job.started_at,
      completed_at: job.completed_at,
      browser_url: live ? `${base}${LiveViewHub.path(job.view_token)}` : null,
      has_screenshots: job.has_screenshots,
      steps: job.steps,
      credits: job.credits,
      session_cost_usd: job.session_cost_usd,
      orchestrator_model: job.orchestrator_model,
      vision_model: job.vision_model,
      downloads_link: job.has_downloads ? `${task}/downloads?job_id=${job.id}` : null,
      video_recording_url: job.has_recording ? `${task}/recording?job_id=${job.id}` : null,
      log_url: `${task}/logs?job_id=${job.id}`,
    };
  }

  /**
   * Get Job Status. Clients poll it, so the answer is kept per job and served again without a query
   * while the database is unchanged (Store.generation: no write here, no commit elsewhere — a running
   * job's every step is a write). What is served is frozen.
   */
  status(orgId: string, endpointName: string, jobId: string): JobStatusResponse {
    const key = `${this.#deps.store.generation()}|${this.#deps.baseUrl()}`;
    const cached = this.#statuses.get(jobId);
    if (cached?.key === key) {
      if (cached.orgId !== orgId || cached.endpointName !== endpointName) throw new NotFoundError(messages.jobNotFound);
      return cached.status;
    }
    const job = this.getRecord(orgId, endpointName, jobId);
    const status = deepFreeze(this.toStatus(job));
    this.#statuses.delete(jobId);
    this.#statuses.set(jobId, { key, orgId, endpointName, status });
    if (this.#statuses.size > STATUS_CACHE_JOBS) this.#statuses.delete(this.#statuses.keys().next().value as string);
    return status;
  }

  list(orgId: string, query: z.output<typeof JobListQuery>): { jobs: JobStatusResponse[]; total: number } {
    const { jobs, total } = this.#deps.store.jobs.list({
      orgId,
      endpointName: query.endpoint_name,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    return { jobs: jobs.map((job) => this.toStatus(job)), total };
  }

  /** The list without each job's result and events (GET /jobs/{org_id}/summary). */
  listSummaries(orgId: string, query: z.output<typeof JobListQuery>): { jobs: JobSummary[]; total: number } {
    const { jobs, total } = this.#deps.store.jobs.list({
      orgId,
      endpointName: query.endpoint_name,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    return { jobs: jobs.map((job) => this.toSummary(job)), total };
  }

  /** Answer Question: 409 unless the job waits on exactly this question. */
  answer(orgId: string, endpointName: string, jobId: string, questionId: string, answer: string): JobActionResponse {
    const job = this.getRecord(orgId, endpointName, jobId);
    if (job.status !== 'waiting_for_input')
      throw new ConflictError(`Job is not waiting for input (status: ${job.status})`);
    const outcome = this.#deps.scheduler.runOf(jobId)?.answer(questionId, answer) ?? 'not-waiting';
    if (outcome === 'stale') throw new ConflictError(`question_id '${questionId}' does not match the pending question`);
    if (outcome === 'not-waiting') throw new ConflictError(`Job is not waiting for input (status: ${job.status})`);
    return { success: true, message: 'Answer accepted; the job continues', job_id: jobId };
  }

  cancel(orgId: string, endpointName: string, jobId: string): JobActionResponse {
    const job = this.getRecord(orgId, endpointName, jobId);
    if (FINAL_JOB_STATUSES.includes(job.status) || !this.#deps.scheduler.cancel(jobId)) {
      throw new ConflictError(
        `Job has already ended (status: ${this.#deps.store.jobs.get(jobId)?.status ?? job.status})`,
      );
    }
    return { success: true, message: 'Job cancellation requested', job_id: jobId };
  }

  /** The screenshot files of an ended job, in step order; 404 when there are none. */
  async screenshots(orgId: string, endpointName: string, jobId: string): Promise<{ name: string; path: string }[]> {
    const job = this.getRecord(orgId, endpointName, jobId);
    const ended = job.status === 'completed' || job.status === 'failed';
    const files = ended && job.has_screenshots ? await this.#screenshotFiles(jobId) : [];
    if (files.length === 0)
      throw new NotFoundError(
        ended
          ? 'This job has no screenshots'
          : `Screenshots are available once the job has completed or failed (status: ${job.status})`,
      );
    return files;
  }

  /** The step screenshots on disk, in step order. */
  async #screenshotFiles(jobId: string): Promise<{ name: string; path: string }[]> {
    const dir = screenshotsDir(this.#deps.artifactsDir, jobId);
    const names = (await readdir(dir).catch(() => [])).filter((n) => /^screenshot_\d{4}\.png$/.test(n)).sort();
    return names.map((name) => ({ name, path: join(dir, name) }));
  }

  /** One step screenshot by position (0 = first), at any time, so the console shows steps as they happen. */
  async screenshotFile(orgId: string, endpointName: string, jobId: string, index: number): Promise<string> {
    this.getRecord(orgId, endpointName, jobId);
    // A running job writes its step screenshots off the step's path: the ones counted in `steps` are waited for.
    await this.#deps.scheduler.runOf(jobId)?.screenshotsWritten();
    const file = (await this.#screenshotFiles(jobId))[index];
    if (file === undefined) throw new NotFoundError('Screenshot not found');
    return file.path;
  }

  /** The job's screen recording (WebM); 404 when it was not recorded, or not kept. */
  recording(orgId: string, endpointName: string, jobId: string): string {
    const job = this.getRecord(orgId, endpointName, jobId);
    if (!job.has_recording)
      throw new NotFoundError(
        job.options.record_video && !FINAL_JOB_STATUSES.includes(job.status)
          ? `The recording is available once the job has ended (status: ${job.status})`
          : 'This job has no recording',
      );
    return recordingPath(this.#deps.artifactsDir, jobId);
  }

  /** The files a job's pages downloaded; 404 when there are none. */
  async downloads(orgId: string, endpointName: string, jobId: string): Promise<{ name: string; path: string }[]> {
    const job = this.getRecord(orgId, endpointName, jobId);
    const dir = downloadsDir(this.#deps.artifactsDir, jobId);
    const names = job.has_downloads ? (await readdir(dir).catch(() => [])).sort() : [];
    if (names.length === 0) throw new NotFoundError('This job has no downloads');
    return names.map((name) => ({ name, path: join(dir, name) }));
  }
}
