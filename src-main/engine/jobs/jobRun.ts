import { jobWaitBudget } from '../../agent/waitBudget.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  AgentFailure,
  type Agent,
  type AgentContext,
  type AgentCredential,
  type AgentQuestion,
  type StepCapture,
} from '../../agent/agentTypes.ts';
import { isoNow, MINUTE_MS, systemClock, type Clock } from '../../base/clock.ts';
import { newId } from '../../base/ids.ts';
import { Lifecycle } from '../../base/lifecycle.ts';
import type { Logger, SecretRedactor } from '../../base/logger.ts';
import type { BrowserLease } from '../../browser/browserLease.ts';
import type { BrowserRuntime, LeaseOptions, ProxySettings } from '../../browser/browserRuntime.ts';
import { HostRefusedError } from '../../browser/browserHosts.ts';
import { LOCAL_HOST } from '../../contract/hosts.ts';
import type { BrowserSlot } from '../limits/browserSlots.ts';
import { matchesHumanizedUrl } from '../../browser/humanizedUrls.ts';
import { stepScreenshot, unmaskedStepScreenshot } from '../../browser/pageScreenshot.ts';
import { RecordingUnavailable, startRecording, type Recording } from '../../browser/recorder.ts';
import type { JobStatus } from '../../contract/job.ts';
import { costOfUsage } from '../../llm/index.ts';
import type { JsonObject } from '../../contract/common.ts';
import type { JobProgress, JobRecord } from '../../store/jobs.ts';
import type { Store } from '../../store/store.ts';
import type { LiveViewHub } from '../liveViewHub.ts';
import { ActiveClock } from './activeClock.ts';
import { creditsFor } from './credits.ts';
import { JobAbort, raceAbort } from './jobAbort.ts';
import type { JobEvents } from './jobEvents.ts';
import type { BundleJobHooks } from '../documents/extractJob.ts';

export interface JobRunDeps {
  store: Store;
  runtime: BrowserRuntime;
  events: JobEvents;
  liveViews: LiveViewHub;
  logger: Logger;
  /** Where `<job_id>/screenshots` and `<job_id>/downloads` go. */
  artifactsDir: string;
  /** How long a question may wait for its answer before the job fails. */
  answerTimeoutMs: number;
  /** Times timeout_minutes and the answer timeout; default the system clock, tests pass a fake one. */
  clock?: Clock;
  /** The page of a live session, for jobs started with browser_session_id (the session outlives the lease). */
  sessionLease?: (sessionId: string, orgId: string) => Promise<BrowserLease>;
  /** Screen recording for jobs with `record_video`: where ffmpeg is (throws RecordingUnavailable saying why not). Absent: recordings are skipped. */
  recorder?: { ffmpegPath(): Promise<string> };
  /** How long each step of ending a job (failure screenshot, recording, browser close) may take in wall time; default STOP_STEP_MS. */
  stopStepMs?: number;
  /** The job's stored credential (`credential_id`), lent to its agent; absent: credentials are not available. */
  credentials?: {
    forJob(
      orgId: string,
      credentialId: string,
      hooks: {
        humanInTheLoop: boolean;
        signal: AbortSignal;
        ask(question: AgentQuestion): Promise<string>;
        log(line: string): void;
      },
    ): AgentCredential | undefined;
  };
  /** Knows every secret value handled so far; job logs, events, questions and results pass through it. */
  redactor?: SecretRedactor;
  /** The form_data of a job started with `document_bundle_id` (engine/documents/extractJob.ts); absent: such jobs fail saying so. */
  bundleFormData?: (job: JobRecord, hooks: BundleJobHooks) => Promise<JsonObject>;
}

/** Screenshot file name of step `index` (0-based), as the archive names it. */
export function screenshotName(index: number): string {
  return `screenshot_${String(index).padStart(4, '0')}.png`;
}

export function screenshotsDir(artifactsDir: string, jobId: string): string {
  return join(artifactsDir, jobId, 'screenshots');
}

export function downloadsDir(artifactsDir: string, jobId: string): string {
  return join(artifactsDir, jobId, 'downloads');
}

/** Where a job's screen recording is kept. */
export function recordingPath(artifactsDir: string, jobId: string): string {
  return join(artifactsDir, jobId, 'recording.webm');
}

/**
 * The wall-time bound of each step of ending a job (failure screenshot, finishing the recording, closing
 * the browser): a page that never answers (a hung frame, a tight loop) cannot hold a job, a slot or
 * shutdown. The recording is waited for again once the browser is closed, and the failure screenshot (never
 * taken at shutdown) gets twice as long, since a busy machine takes a while to paint: a job ends within
 * 3 × STOP_STEP_MS of shutdown, 5 × of a timeout (docs/api.md, "Stopping").
 */
export const STOP_STEP_MS = 5_000;

/** Settles when `work` does or after `ms`, whichever is first; says which. */
async function within(work: Promise<unknown>, ms: number): Promise<'done' | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => 'done' as const,
        () => 'done' as const,
      ),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a run ends: the final status and what goes with it. */
interface Ending {
  status: 'completed' | 'failed' | 'cancelled';
  fields: Pick<JobProgress, 'result' | 'error'>;
}

export type AnswerOutcome = 'accepted' | 'not-waiting' | 'stale';

interface PendingQuestion {
  questionId: string;
  resolve(answer: string): void;
}

/** One execution of one job: browser lease, agent, steps, questions, and the final status. */
export class JobRun {
  readonly jobId: string;
  readonly profileId: string | null;
  /** Whether this run holds its profile's folder (and so excludes other runs on it); fixed at start. */
  readonly locksProfile: boolean;
  readonly #deps: JobRunDeps;
  readonly #agent: Agent;
  readonly #proxyPassword: string | undefined;
  readonly #controller = new AbortController();
  #pending: PendingQuestion | undefined;
  #steps = 0;
  #costUsd = 0;
  #lease: BrowserLease | undefined;
  /** Step screenshots being written, in step order; never rejects (a failure is kept in #writeError). */
  #writes: Promise<void> = Promise.resolve();
  #writeError: unknown;
  #shotStored = false;
  #shotDirMade = false;
  /** Questions asked so far: a step capture started before one is taken again (the human may have changed the page). */
  #asked = 0;
  /** Step captures started ahead of their steps (captureStep), with the question count when each started. */
  readonly #captures = new WeakMap<StepCapture, { png: Promise<Buffer | undefined>; asked: number }>();

  /** Where the job's browser was placed (engine/limits/browserSlots.ts); absent: the local Chromium (or its session's browser). */
  readonly #slot: BrowserSlot | undefined;

  constructor(deps: JobRunDeps, job: JobRecord, agent: Agent, proxyPassword: string | undefined, slot?: BrowserSlot) {
    this.#deps = deps;
    this.#slot = slot;
    this.jobId = job.id;
    this.profileId = job.profile_id;
    this.locksProfile = job.profile_id !== null && job.options.save_profile;
    this.#agent = agent;
    this.#proxyPassword = proxyPassword;
  }

  /** Whether the run is waiting for a human's answer (it then holds no running slot: jobScheduler.ts). */
  get waitingForInput(): boolean {
    return this.#pending !== undefined;
  }

  /** The page a live view shows. */
  page(): Page | undefined {
    return this.#lease?.page;
  }

  cancel(): void {
    this.#controller.abort(new JobAbort('cancel', 'Cancelled by user'));
  }

  shutdown(): void {
    this.#controller.abort(new JobAbort('shutdown', 'interrupted by shutdown'));
  }

  /** Delivers a human's answer to the pending question. */
  answer(questionId: string, answer: string): AnswerOutcome {
    if (!this.#pending) return 'not-waiting';
    if (this.#pending.questionId !== questionId) return 'stale';
    const pending = this.#pending;
    this.#pending = undefined;
    pending.resolve(answer);
    return 'accepted';
  }

  get #clock(): Clock {
    return this.#deps.clock ?? systemClock;
  }

  /** Moves the job's status and announces it; the job as moved, or undefined when it was not in `from`. */
  #transition(from: readonly JobStatus[], to: JobStatus, progress: JobProgress = {}): JobRecord | undefined {
    // The job as moved is read once, in the move's transaction, and announced as such.
    const moved = this.#deps.store.jobs.move(this.jobId, from, to, progress, this.#deps.events.writeWithStatus);
    if (moved) this.#deps.events.fireStatus(moved);
    return moved;
  }

  /** Stores an event and announces it to the job's listeners (the job's row is not read again for it). */
  #event(type: string, data: JsonObject): void {
    const event = this.#deps.store.jobs.appendEvent(this.jobId, type, this.#deps.redactor?.redactJson(data) ?? data);
    this.#deps.events.fireEvent(this.jobId, event);
  }

  /**
   * Records the step just captured: the step count, its `step` event and (with `line`) its log line, in
   * one SQLite transaction, then announces them.
   */
  #step(description: string, line?: string): void {
    const redact = this.#deps.redactor;
    const data = { step: this.#steps, description };
    const written = this.#deps.store.jobs.appendStep(
      this.jobId,
      { steps: this.#steps },
      { type: 'step', data: redact?.redactJson(data) ?? data },
      line === undefined ? undefined : (redact?.redact(line) ?? line),
    );
    this.#deps.events.fireEvent(this.jobId, written.event);
    if (written.line) this.#deps.events.fireLog(this.jobId, written.line);
  }

  #log(line: string): void {
    this.#deps.events.fireLog(
      this.jobId,
      this.#deps.store.jobs.appendLog(this.jobId, this.#deps.redactor?.redact(line) ?? line),
    );
  }

  /**
   * Takes the step's screenshot: the pixels on the step's path (so the picture is the step's state), the
   * file written off it, in step order. `steps` counts the step at once (stored with the step's event by
   * #step); `has_screenshots` turns true once a file is on disk; a request for one screenshot waits for the writes still under way
   * (`screenshotsWritten`), and the job's final status waits for all of them.
   */
  async #screenshot(page: Page, capture?: StepCapture): Promise<void> {
    const early = capture && this.#captures.get(capture);
    // Secret fields (passwords, one-time codes, what the login filler or a credential tool typed into) in every frame are painted over.
    const png = (early && early.asked === this.#asked ? await early.png : undefined) ?? (await stepScreenshot(page));
    const index = this.#steps;
    this.#steps += 1;
    this.#writes = this.#writes.then(async () => {
      if (this.#writeError !== undefined) return;
      try {
        const dir = screenshotsDir(this.#deps.artifactsDir, this.jobId);
        // The folder is made with the first file; later ones go straight in.
        if (!this.#shotDirMade) await mkdir(dir, { recursive: true });
        this.#shotDirMade = true;
        await writeFile(join(dir, screenshotName(index)), png);
        if (!this.#shotStored) this.#deps.store.jobs.update(this.jobId, { has_screenshots: true });
        this.#shotStored = true;
      } catch (error) {
        this.#writeError = error;
      }
    });
  }

  /** Settles once the step screenshots taken so far are on disk (or failed to be written). */
  screenshotsWritten(): Promise<void> {
    return this.#writes;
  }

  /** Waits for the step screenshots still being written; throws the first write that failed (the job then fails saying so). */
  async #writeScreenshots(): Promise<void> {
    await this.#writes;
    if (this.#writeError !== undefined) {
      const detail = this.#writeError instanceof Error ? this.#writeError.message : String(this.#writeError);
      throw new Error(`could not store a step screenshot: ${detail}`);
    }
  }

  #context(job: JobRecord, lease: BrowserLease, clock: ActiveClock, formData: JsonObject): AgentContext {
    const signal = this.#controller.signal;
    return {
      page: lease.page,
      startUrl: job.portal.start_url,
      task: job.portal.task,
      formData,
      formSchema: job.portal.form_schema,
      outputSchema: job.portal.output_schema,
      humanInTheLoop: job.options.human_in_the_loop,
      isHumanized: (url) => matchesHumanizedUrl(url, job.portal.humanized_urls),
      signal,
      // Waits on the page follow the page's readiness for as long as the job has left (agent/waitBudget.ts).
      budget: jobWaitBudget(
        () => job.options.timeout_minutes * MINUTE_MS - clock.spentMs,
        job.options.timeout_minutes * MINUTE_MS,
        job.options.timeout_minutes,
      ),
      log: (line) => this.#log(line),
      recordStep: async (description, capture) => {
        if (signal.aborted) throw signal.reason as Error;
        if (this.#steps >= job.options.max_turns) {
          throw new AgentFailure(`max_turns (${job.options.max_turns}) reached before the job finished`);
        }
        await this.#screenshot(lease.page, capture);
        this.#step(description, `step ${this.#steps}: ${description}`);
      },
      // Started now, read when its step is recorded (or dropped): never rejects, and only reads the page.
      captureStep: () => {
        const png = unmaskedStepScreenshot(lease.page);
        const capture: StepCapture = { taken: png.then(() => undefined) };
        this.#captures.set(capture, { png, asked: this.#asked });
        return capture;
      },
      ask: (question) => this.#ask(job, question, clock),
      ...this.#credential(job, clock),
      job: {
        id: job.id,
        portalId: job.portal_id,
        orchestratorModel: job.orchestrator_model,
        visionModel: job.vision_model,
        skillIds: job.portal.skill_ids,
        replay: job.options.replay ?? true,
        assistModel: job.portal.assist_model ?? null,
      },
      reportUsage: (usage) => {
        this.#costUsd += usage.costUsd;
        this.#deps.store.jobs.update(this.jobId, { session_cost_usd: this.#costUsd });
      },
      reportMode: (mode, detail) => {
        this.#event('agent_mode', { mode, detail });
        this.#log(`agent mode: ${mode} (${detail})`);
      },
      reportFill: (report) => {
        this.#event('fill_report', {
          placements: { ...report.placements },
          unplaced: report.unplaced.map((u) => ({ ...u })),
        });
      },
      reportSubmission: (receipt) => {
        this.#event('submission', { ...receipt, fields: { ...receipt.fields } });
      },
    };
  }

  #credential(job: JobRecord, clock: ActiveClock): { credential?: AgentCredential } {
    const id = job.options.credential_id;
    if (!id || !this.#deps.credentials) return {};
    const credential = this.#deps.credentials.forJob(job.org_id, id, {
      humanInTheLoop: job.options.human_in_the_loop,
      signal: this.#controller.signal,
      ask: (question) => this.#ask(job, question, clock),
      log: (line) => this.#log(line),
    });
    if (!credential) throw new AgentFailure('the credential this job was started with has been deleted');
    return { credential };
  }

  async #ask(job: JobRecord, question: AgentQuestion, clock: ActiveClock): Promise<string> {
    const signal = this.#controller.signal;
    if (!job.options.human_in_the_loop) throw new AgentFailure(question.message);
    if (signal.aborted) throw signal.reason as Error;
    this.#asked += 1;
    const questionId = newId();
    const answered = new Promise<string>((resolve) => {
      this.#pending = { questionId, resolve };
    });
    // The event is stored before the status moves, and announced after, so a listener that sees
    // waiting_for_input can already read the question from the job's events.
    const asked = this.#deps.redactor?.redactJson(question) ?? question;
    const event = this.#deps.store.jobs.appendEvent(this.jobId, 'question', {
      question_id: questionId,
      question: asked.question,
      options: asked.options,
      message: asked.message,
    });
    clock.pause();
    this.#transition(['running'], 'waiting_for_input', { pending_question_id: questionId });
    this.#deps.events.fireEvent(this.jobId, event);
    this.#log(`waiting for input: ${question.question}`);
    const noAnswer = this.#clock.setTimeout(() => {
      this.#controller.abort(
        new JobAbort(
          'no-answer',
          `No answer to question '${question.question}' within ${Math.round(this.#deps.answerTimeoutMs / 60_000)} minutes`,
        ),
      );
    }, this.#deps.answerTimeoutMs);
    try {
      const answer = await raceAbort(answered, signal);
      if (question.secret) this.#deps.redactor?.add(answer);
      this.#event('answer', { question_id: questionId, answer: question.secret ? '[redacted]' : answer });
      this.#transition(['waiting_for_input'], 'running', { pending_question_id: null });
      clock.resume();
      this.#log('answer received; continuing');
      return answer;
    } finally {
      this.#clock.clearTimeout(noAnswer);
      this.#pending = undefined;
    }
  }

  #bundleFormData(job: JobRecord, clock: ActiveClock): Promise<JsonObject> {
    if (!this.#deps.bundleFormData) throw new AgentFailure('document bundles are not available in this service');
    return this.#deps.bundleFormData(job, {
      ask: (question) => this.#ask(job, question, clock),
      event: (type, data) => this.#event(type, data),
      log: (line) => this.#log(line),
      reportUsage: (usage) => {
        this.#costUsd += costOfUsage(usage.model, usage);
        this.#deps.store.jobs.update(this.jobId, { session_cost_usd: this.#costUsd });
      },
      signal: this.#controller.signal,
    });
  }

  /** Runs the job to a final status; never throws. The status moves last, after cleanup, so a final job is fully settled. */
  async execute(): Promise<void> {
    // The job as it starts running is the move's own read of it.
    const job = this.#transition(['queued'], 'running', { started_at: isoNow(this.#clock) });
    if (!job) return;
    const signal = this.#controller.signal;
    const clock = new ActiveClock(
      job.options.timeout_minutes * MINUTE_MS,
      () => {
        this.#controller.abort(new JobAbort('timeout', `timeout_minutes (${job.options.timeout_minutes}) exceeded`));
      },
      this.#clock,
    );
    // What the run holds, registered as it is acquired and released in reverse once the run ends, whichever
    // way (base/lifecycle.ts): the recording, the live view, the crash watch, the browser lease, and last the
    // recording's file (a page that held the recording's last calls lets go once closed: ffmpeg then finishes).
    const scope = new Lifecycle(`job ${this.jobId}`);
    let recordingStopped: Promise<void> | undefined;
    scope.defer(
      () => (recordingStopped ? this.#boundedStop('finishing the recording', recordingStopped) : undefined),
      'recording file',
    );
    let ending: Ending = { status: 'failed', fields: { error: 'the job ended without recording why' } };
    // Cleanup, started once: when the agent has finished (the browser then closes while the step screenshots are
    // still being written: both end before the status), else after the failure screenshot.
    let released: Promise<void> | undefined;
    const release = (): Promise<void> =>
      (released ??= scope
        .dispose()
        .catch((error: unknown) =>
          this.#deps.logger.warn('job cleanup incomplete', { job: this.jobId, error: String(error) }),
        ));
    clock.resume();
    try {
      try {
        this.#log(`job started on ${job.portal.start_url} with ${job.orchestrator_model}`);
        const proxy: ProxySettings | undefined = job.options.proxy
          ? { ...job.options.proxy, ...(this.#proxyPassword !== undefined && { password: this.#proxyPassword }) }
          : undefined;
        // A bundle job reads its form_data from the documents first (waiting for them to be read), before any browser starts.
        const formData = job.options.document_bundle_id
          ? await raceAbort(this.#bundleFormData(job, clock), signal)
          : (job.options.form_data ?? {});
        // The folder is made by the first download (browser/downloadCapture.ts), not for every job.
        const dlDir = downloadsDir(this.#deps.artifactsDir, this.jobId);
        const sessionId = job.options.browser_session_id ?? undefined;
        if (sessionId !== undefined && !this.#deps.sessionLease)
          throw new Error('browser sessions are not available in this service');
        const lease = scope.add(
          sessionId !== undefined && this.#deps.sessionLease
            ? await this.#deps.sessionLease(sessionId, job.org_id)
            : await this.#leaseOnHost({
                ...(job.profile_id !== null && { profileId: job.profile_id }),
                saveProfile: job.options.save_profile,
                ...(proxy && { proxy }),
                downloadsDir: dlDir,
                signal,
              }),
          (held) => this.#closeLease(held),
          'browser lease',
        );
        this.#lease = lease;
        const onCrash = () =>
          this.#controller.abort(
            new JobAbort(
              'crash',
              `The browser closed unexpectedly: ${String((lease.signal.reason as Error | undefined)?.message ?? 'disconnected')}`,
            ),
          );
        lease.signal.addEventListener('abort', onCrash, { once: true });
        scope.defer(() => lease.signal.removeEventListener('abort', onCrash), 'crash watch');
        scope.add(
          this.#deps.liveViews.register(job.view_token, {
            title: `Job ${job.id.slice(0, 8)} · ${job.endpoint_name}`,
            page: () => this.#lease?.page,
            interactive: true,
          }),
          (live) => live.dispose(),
          'live view',
        );
        const recording = job.options.record_video ? await this.#startRecording(lease.page) : undefined;
        if (recording)
          scope.defer(() => {
            recordingStopped = this.#stopRecording(recording);
            return this.#boundedStop('finishing the recording', recordingStopped);
          }, 'recording');
        const outcome = await raceAbort(this.#agent.run(this.#context(job, lease, clock, formData)), signal);
        // The agent is done with the page: the browser closes while the last step's screenshot is written.
        void release();
        await this.#writeScreenshots();
        clock.pause();
        ending = { status: 'completed', fields: { result: outcome.result, error: null } };
        this.#log('job completed');
      } catch (error) {
        clock.pause();
        const reason = signal.aborted ? (signal.reason as Error) : error;
        if (reason instanceof JobAbort && reason.kind === 'cancel') {
          ending = { status: 'cancelled', fields: { error: reason.message } };
          this.#log('job cancelled');
        } else {
          const message = reason instanceof Error ? reason.message : String(reason);
          ending = { status: 'failed', fields: { error: message } };
          if (!(reason instanceof JobAbort) && !(reason instanceof AgentFailure))
            this.#deps.logger.warn('job failed', { job: this.jobId, error: String(reason) });
          // Not once the browser is closing (a step screenshot that could not be written): there is no page left to show.
          if (!released) await this.#boundedStop('the failure screenshot', this.#failureScreenshot(reason), 2);
          this.#log(`job failed: ${message}`);
        }
      }
    } catch (error) {
      // Recording how the run went failed too (a log line the database refused): the run still ends, and says what it was ending with.
      this.#deps.logger.error('could not record how a job went', { job: this.jobId, error: String(error) });
    }
    clock.pause();
    // A failed, cancelled or interrupted run's screenshots are on disk too before its status is final.
    await Promise.all([this.#writes, release()]);
    try {
      if ((this.#lease?.downloads().length ?? 0) > 0) this.#deps.store.jobs.update(this.jobId, { has_downloads: true });
    } catch (error) {
      this.#deps.logger.error("could not record a job's downloads", { job: this.jobId, error: String(error) });
    }
    this.#finish(job, ending.status, this.#deps.redactor?.redactJson(ending.fields) ?? ending.fields, clock);
  }

  /** Closes the job's browser lease, at most stopStepMs; a close that fails is logged (the job's end is what matters). */
  #closeLease(lease: BrowserLease): Promise<void> {
    return this.#boundedStop(
      'closing the browser',
      lease
        .close()
        .catch((error: unknown) =>
          this.#deps.logger.warn('lease close failed', { job: this.jobId, error: String(error) }),
        ),
    );
  }

  /**
   * The job's browser on the host its slot was placed on; a host that refuses (a 429, a refused connect)
   * hands the slot to the next host with room. Nothing has run on a page yet, so moving on is safe.
   */
  async #leaseOnHost(options: LeaseOptions): Promise<BrowserLease> {
    const tried = new Set<string>();
    const refusals: string[] = [];
    for (;;) {
      const host = this.#slot?.host ?? LOCAL_HOST;
      if (host !== LOCAL_HOST) this.#log(`browser on host '${host}'`);
      try {
        return await this.#deps.runtime.lease({ ...options, ...(host !== LOCAL_HOST && { host }) });
      } catch (error) {
        if (!(error instanceof HostRefusedError) || !this.#slot) throw error;
        tried.add(host);
        refusals.push(error.message);
        this.#log(`${error.message}; trying another host`);
        if (!this.#slot.moveOn(tried))
          throw new AgentFailure(`No browser host could take the job: ${refusals.join('; ')}`);
      }
    }
  }

  /** Waits for one step of ending the job, at most stopStepMs: past that the job ends anyway and the step finishes (or not) on its own. */
  async #boundedStop(what: string, step: Promise<unknown>, steps = 1): Promise<void> {
    const ms = steps * (this.#deps.stopStepMs ?? STOP_STEP_MS);
    if ((await within(step, ms)) === 'done') return;
    this.#deps.logger.warn('job stop step timed out', { job: this.jobId, step: what, ms });
    this.#log(`${what} did not finish within ${Math.round(ms / 1000)} s; going on without it`);
  }

  /** Starts recording the job's page; a recording that cannot start is skipped with its reason (logged, and a `recording` event), never failing the job. */
  async #startRecording(page: Page): Promise<Recording | undefined> {
    try {
      if (!this.#deps.recorder) throw new RecordingUnavailable('screen recording is not set up in this service');
      const ffmpegPath = await this.#deps.recorder.ffmpegPath();
      const recording = await startRecording(page, recordingPath(this.#deps.artifactsDir, this.jobId), {
        ffmpegPath,
        clock: this.#clock,
      });
      this.#log('recording the screen');
      return recording;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.#deps.logger.warn('recording skipped', { job: this.jobId, reason: detail });
      this.#event('recording', { status: 'skipped', detail });
      this.#log(`recording skipped: ${detail}`);
      return undefined;
    }
  }

  /** Ends the recording (ffmpeg exits before this returns) and marks it kept, or says why it was not. */
  async #stopRecording(recording: Recording): Promise<void> {
    const outcome = await recording.stop();
    if (outcome.ok) {
      this.#deps.store.jobs.update(this.jobId, { has_recording: true });
      this.#log('recording saved');
      return;
    }
    this.#deps.logger.warn('recording failed', { job: this.jobId, reason: outcome.reason });
    this.#event('recording', { status: 'failed', detail: outcome.reason });
    this.#log(`recording failed: ${outcome.reason}`);
  }

  async #failureScreenshot(reason: unknown): Promise<void> {
    const page = this.#lease?.page;
    if (!page || page.isClosed() || (reason instanceof JobAbort && reason.kind !== 'timeout')) return;
    try {
      await this.#screenshot(page);
      this.#step('state when the job failed');
      await this.#writes;
    } catch {
      // The page may be unusable by now; the failure itself is what matters.
    }
  }

  #finish(
    job: JobRecord,
    status: 'completed' | 'failed' | 'cancelled',
    fields: Pick<JobProgress, 'result' | 'error'>,
    clock: ActiveClock,
  ): void {
    const activeMs = clock.spentMs;
    try {
      this.#transition(['running', 'waiting_for_input'], status, {
        ...fields,
        pending_question_id: null,
        completed_at: isoNow(this.#clock),
        active_ms: activeMs,
        credits: creditsFor(job.orchestrator_model, activeMs),
      });
    } catch (error) {
      // Nothing of the end was written (status and webhook outbox are one transaction): the next start fails the job as interrupted.
      this.#deps.logger.error('could not record the end of a job', { job: this.jobId, status, error: String(error) });
    }
  }
}
