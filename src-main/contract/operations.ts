import { z } from 'zod';
import {
  ApiKeyCreated, ApiKeyListResponse, ApiKeyParams, ApiKeyRevokeResponse, ConsoleSettings, ConsoleSettingsUpdate, Org, OrgCreateRequest, OrgList,
  ProviderKeyRequest, ProviderList, ProviderParams, ProviderStatus, ProviderTestResult, ScreenshotParams,
} from './console.ts';
import { HealthResponse, OrgIdParam } from './common.ts';
import { BrowserHostList } from './hosts.ts';
import type { OperationDeclaration } from './declaration.ts';
import {
  DOCUMENT_MAX_FILE_BYTES, DOCUMENT_MAX_FILES, DocumentBundle, DocumentBundleCreated, DocumentBundleList, DocumentBundleListQuery, DocumentBundleParams,
  DocumentExtraction, DocumentExtractQuery,
} from './document.ts';
import {
  Credential, CredentialCreateRequest, CredentialList, CredentialParams, PhoneNumber, PhoneNumberCreateRequest, PhoneNumberList, PhoneNumberParams,
  VerificationCodeRequest, VerificationCodeResponse,
} from './credential.ts';
import {
  AnswerRequest, JobActionResponse, JobIdQuery, JobList, JobListQuery, JobLogEvent, JobLogsQuery, JobStartRequest, JobStartResponse, JobStatusResponse,
  JobSummaryList,
} from './job.ts';
import { LiveFrame, LiveInput, LiveInputAccepted, LiveViewParams } from './liveView.ts';
import { ConnectedAccountList, ConnectedAccountParams, ConnectRequest, ConnectResponse, OAuthApp, OAuthAppAddRequest, OAuthAppList, OAuthAppParams } from './oauth.ts';
import { Portal, PortalCreateRequest, PortalList, PortalParams, PortalUpdateRequest } from './portal.ts';
import { SampleList, SampleSubmission, SampleSubmissionParams } from './sample.ts';
import { ProfileCreateRequest, ProfileList, ProfileParams, ProfileSessionClosed, ProfileSessionCreated, ProfileSessionList, ProfileSessionParams } from './profile.ts';
import { Session, SessionCreateRequest, SessionList, SessionListQuery, SessionParams } from './session.ts';
import { ActionCacheList, ActionCacheQuery, SingleActionRequest, SingleActionResponse } from './singleAction.ts';
import { SKILL_ZIP_MAX_BYTES, Skill, SkillList, SkillListQuery, SkillParams, SkillUploadQuery } from './skill.ts';
import { DeliveryList, DeliveryListQuery, DeliveryParams, WebhookDelivery, WebhookKeyCreated, WebhookKeyRevoked, WebhookKeyStatus } from './webhook.ts';
import {
  ExecutionParams, StepScreenshotParams, Workflow, WorkflowCreateRequest, WorkflowExecution, WorkflowExecutionDetail, WorkflowExecutionList,
  WorkflowList, WorkflowParams, WorkflowResumeRequest, WorkflowRunRequest,
} from './workflow.ts';

const MB = 1024 * 1024;

/**
 * Every HTTP operation of the API, declared once, by name (its OpenAPI `operationId`). From this table:
 * the server's routes (`api/server.ts`: one handler per name, `api/routes/*`, typed by these schemas),
 * `/openapi.json`, the typed client (`client.ts`) and the console's zod-free route map
 * (`generated/operationRoutes.ts`, written by `npm run build:routes`). docs/architecture.md, "Adding an endpoint".
 */
export const operations = {
  getHealth: { method: 'GET', path: '/health', tag: 'meta', summary: 'Service health', auth: 'none', response: HealthResponse },

  // §4.1: portals of an organization, keyed by endpoint_name.
  createPortal: { method: 'POST', path: '/portals/:org_id', tag: 'portals', summary: 'Create a portal', auth: 'org', params: OrgIdParam, body: PortalCreateRequest, response: Portal },
  listPortals: { method: 'GET', path: '/portals/:org_id', tag: 'portals', summary: 'List portals', auth: 'org', params: OrgIdParam, response: PortalList },
  getPortal: { method: 'GET', path: '/portals/:org_id/:endpoint_name', tag: 'portals', summary: 'Get a portal', auth: 'org', params: PortalParams, response: Portal },
  updatePortal: {
    method: 'PATCH', path: '/portals/:org_id/:endpoint_name', tag: 'portals', summary: 'Update a portal (only the fields given)', auth: 'org',
    params: PortalParams, body: PortalUpdateRequest, response: Portal,
  },
  deletePortal: { method: 'DELETE', path: '/portals/:org_id/:endpoint_name', tag: 'portals', summary: 'Delete a portal and its configuration', auth: 'org', params: PortalParams, status: 204 },

  // §4.4: skill zips grouped in folders.
  uploadSkill: {
    method: 'POST', path: '/skills/:org_id', tag: 'skills', summary: `Upload a skill zip (multipart field "file", ${SKILL_ZIP_MAX_BYTES / MB} MB max)`, auth: 'org',
    params: OrgIdParam, query: SkillUploadQuery, multipart: { fileField: 'file' }, response: Skill,
  },
  listSkills: {
    method: 'GET', path: '/skills/:org_id', tag: 'skills', summary: 'List skills (other organizations\' public skills with include_public=true)', auth: 'org',
    params: OrgIdParam, query: SkillListQuery, response: SkillList,
  },
  getSkillMarkdown: {
    method: 'GET', path: '/skills/:org_id/:skill_id/skill-md', tag: 'skills', summary: 'The skill\'s SKILL.md as text/markdown (own skills and other organizations\' public ones)', auth: 'org',
    params: SkillParams, produces: { type: 'text/markdown', schema: z.string() },
  },
  deleteSkill: { method: 'DELETE', path: '/skills/:org_id/:skill_id', tag: 'skills', summary: 'Delete a skill, its files and its portal attachments', auth: 'org', params: SkillParams, status: 204 },

  // local-service.md §7: document bundles of an org.
  uploadDocuments: {
    method: 'POST', path: '/documents/:org_id', tag: 'documents', auth: 'org',
    summary: `Upload a document bundle (multipart, one or more "files"; ${DOCUMENT_MAX_FILES} files, ${DOCUMENT_MAX_FILE_BYTES / MB} MB each); read in the background`,
    params: OrgIdParam, multipart: { fileField: 'files' }, response: DocumentBundleCreated,
  },
  listDocumentBundles: {
    method: 'GET', path: '/documents/:org_id', tag: 'documents', summary: 'List the org\'s document bundles, newest first (Portico addition: the console\'s Documents page)', auth: 'org',
    params: OrgIdParam, query: DocumentBundleListQuery, response: DocumentBundleList,
  },
  getDocumentBundle: {
    method: 'GET', path: '/documents/:org_id/:document_bundle_id', tag: 'documents', auth: 'org',
    summary: 'A document bundle: its status and, per document, the type, size, pages and characters read (or why it could not be read)',
    params: DocumentBundleParams, response: DocumentBundle,
  },
  deleteDocumentBundle: {
    method: 'DELETE', path: '/documents/:org_id/:document_bundle_id', tag: 'documents', summary: 'Delete a document bundle and its files', auth: 'org',
    params: DocumentBundleParams, status: 204,
  },
  previewDocumentExtraction: {
    method: 'POST', path: '/documents/:org_id/:document_bundle_id/extract', tag: 'documents', auth: 'org',
    summary: 'Preview the form_data a job on portal endpoint_name would get from the bundle: values with their sources, and the keys the documents do not settle',
    params: DocumentBundleParams, query: DocumentExtractQuery, response: DocumentExtraction,
  },

  // §4.2 and local-service.md §3: start, status, logs, answer, cancel, list, screenshots, downloads, recording.
  startJob: { method: 'POST', path: '/jobs/:org_id/:endpoint_name/start', tag: 'jobs', summary: 'Start a job (asynchronous)', auth: 'org', params: PortalParams, body: JobStartRequest, response: JobStartResponse },
  getJobStatus: { method: 'GET', path: '/task/:org_id/:endpoint_name/status', tag: 'jobs', summary: 'Get Job Status', auth: 'org', params: PortalParams, query: JobIdQuery, response: JobStatusResponse },
  answerJob: {
    method: 'POST', path: '/jobs/:org_id/:endpoint_name/answer', tag: 'jobs', summary: 'Answer the pending question (409 unless waiting on it)', auth: 'org',
    params: PortalParams, query: JobIdQuery, body: AnswerRequest, response: JobActionResponse,
  },
  cancelJob: {
    method: 'POST', path: '/jobs/:org_id/:endpoint_name/cancel', tag: 'jobs', summary: 'Cancel a queued or running job (409 if it ended)', auth: 'org',
    params: PortalParams, query: JobIdQuery, response: JobActionResponse,
  },
  listJobs: { method: 'GET', path: '/jobs/:org_id', tag: 'jobs', summary: 'List jobs, newest first', auth: 'org', params: OrgIdParam, query: JobListQuery, response: JobList },
  listJobSummaries: {
    method: 'GET', path: '/jobs/:org_id/summary', tag: 'jobs', summary: 'List jobs, newest first, without each job\'s result and events (Portico addition: the console\'s Jobs page)', auth: 'org',
    params: OrgIdParam, query: JobListQuery, response: JobSummaryList,
  },
  getJobScreenshots: {
    method: 'GET', path: '/task/:org_id/:endpoint_name/screenshots', tag: 'jobs', summary: 'Step screenshots as a tar.gz of screenshot_NNNN.png', auth: 'org',
    params: PortalParams, query: JobIdQuery, produces: { type: 'application/gzip' },
  },
  getJobScreenshot: {
    method: 'GET', path: '/task/:org_id/:endpoint_name/screenshots/:index', tag: 'jobs', summary: 'One step screenshot (0-based, step order) as image/png', auth: 'org',
    params: ScreenshotParams, query: JobIdQuery, produces: { type: 'image/png' },
  },
  getJobDownloads: {
    method: 'GET', path: '/task/:org_id/:endpoint_name/downloads', tag: 'jobs', summary: 'What the job\'s pages downloaded, as a zip', auth: 'org',
    params: PortalParams, query: JobIdQuery, produces: { type: 'application/zip' },
  },
  getJobRecording: {
    method: 'GET', path: '/task/:org_id/:endpoint_name/recording', tag: 'jobs', summary: 'The job\'s screen recording (video/webm) when it was recorded', auth: 'org',
    params: PortalParams, query: JobIdQuery, produces: { type: 'video/webm' },
  },
  streamJobLogs: {
    method: 'GET', path: '/task/:org_id/:endpoint_name/logs', tag: 'jobs', auth: 'org',
    summary: 'Stream Job Logs (text/event-stream; replays from the start, ends with the job; `status=true` also pushes `status` events)',
    params: PortalParams, query: JobLogsQuery, produces: { type: 'text/event-stream', schema: JobLogEvent },
  },

  // Signing key management and the delivery log (local-service.md §4).
  createWebhookKey: {
    method: 'POST', path: '/webhooks/:org_id/key', tag: 'webhooks', summary: 'Generate or rotate the webhook signing key (the secret is shown once)', auth: 'org',
    params: OrgIdParam, response: WebhookKeyCreated,
  },
  getWebhookKey: {
    method: 'GET', path: '/webhooks/:org_id/key', tag: 'webhooks', summary: 'Whether a signing key is configured (never the secret)', auth: 'org',
    params: OrgIdParam, response: WebhookKeyStatus,
  },
  revokeWebhookKey: {
    method: 'DELETE', path: '/webhooks/:org_id/key', tag: 'webhooks', summary: 'Revoke the signing key: no webhooks are sent until a new one is generated', auth: 'org',
    params: OrgIdParam, response: WebhookKeyRevoked,
  },
  listDeliveries: {
    method: 'GET', path: '/webhooks/:org_id/deliveries', tag: 'webhooks', summary: 'Webhook deliveries with their attempts, newest first', auth: 'org',
    params: OrgIdParam, query: DeliveryListQuery, response: DeliveryList,
  },
  redeliver: {
    method: 'POST', path: '/webhooks/:org_id/deliveries/:delivery_id/redeliver', tag: 'webhooks', summary: 'Send a delivery again (same id and body, a fresh set of retries)', auth: 'org',
    params: DeliveryParams, response: WebhookDelivery,
  },

  // `/admin/*`: what only the local operator (the console token) may do.
  listOrgs: { method: 'GET', path: '/admin/orgs', tag: 'admin', summary: 'Organizations on this machine', auth: 'console', response: OrgList },
  createOrg: { method: 'POST', path: '/admin/orgs', tag: 'admin', summary: 'Create an organization', auth: 'console', body: OrgCreateRequest, response: Org, status: 201 },
  listOrgKeys: {
    method: 'GET', path: '/admin/orgs/:org_id/keys', tag: 'admin', summary: 'An organization\'s API keys: org keys and its workspaces\' account keys (never the secrets)', auth: 'console',
    params: OrgIdParam, response: ApiKeyListResponse,
  },
  createOrgKey: {
    method: 'POST', path: '/admin/orgs/:org_id/keys', tag: 'admin', summary: 'Create an org API key; the only response carrying the secret', auth: 'console',
    params: OrgIdParam, response: ApiKeyCreated, status: 201,
  },
  revokeOrgKey: {
    method: 'POST', path: '/admin/orgs/:org_id/keys/:key_id/revoke', tag: 'admin', summary: 'Revoke an org API key or an account key of the org\'s workspaces', auth: 'console',
    params: ApiKeyParams, response: ApiKeyRevokeResponse,
  },
  listProviders: {
    method: 'GET', path: '/admin/providers', tag: 'admin', summary: 'Which model providers have a key, and the base URL each is called at', auth: 'console', response: ProviderList,
  },
  updateProvider: {
    method: 'PUT', path: '/admin/providers/:provider', tag: 'admin', summary: 'Store a provider API key (keychain) and/or base URL (null: the provider\'s own)', auth: 'console',
    params: ProviderParams, body: ProviderKeyRequest, response: ProviderStatus,
  },
  deleteProviderKey: {
    method: 'DELETE', path: '/admin/providers/:provider', tag: 'admin', summary: 'Remove a provider API key (the base URL stays)', auth: 'console', params: ProviderParams, status: 204,
  },
  testProvider: {
    method: 'POST', path: '/admin/providers/:provider/test', tag: 'admin', summary: 'Test the stored key against the provider at its effective base URL', auth: 'console',
    params: ProviderParams, response: ProviderTestResult,
  },
  getSettings: { method: 'GET', path: '/admin/settings', tag: 'admin', summary: 'Data folder, job concurrency and the Chromium in use', auth: 'console', response: ConsoleSettings },
  updateSettings: {
    method: 'PATCH', path: '/admin/settings', tag: 'admin', summary: 'Change job concurrency, the Chromium path (validated) or the recording default; all apply at once', auth: 'console',
    body: ConsoleSettingsUpdate, response: ConsoleSettings,
  },
  // Issue 22: the browser hosts (docs/scale.md); never a token.
  listBrowserHosts: {
    method: 'GET', path: '/admin/hosts', tag: 'admin', summary: 'Browser hosts: reachable, version, browsers in use / max, last error (never a token)', auth: 'console',
    response: BrowserHostList,
  },
  listOAuthApps: { method: 'GET', path: '/admin/oauth-apps', tag: 'admin', summary: 'OAuth apps for connected accounts (never the client secrets)', auth: 'console', response: OAuthAppList },
  addOAuthApp: {
    method: 'POST', path: '/admin/oauth-apps', tag: 'admin', summary: 'Add or replace an OAuth app; presets google and microsoft need only the client id (and secret)', auth: 'console',
    body: OAuthAppAddRequest, response: OAuthApp, status: 201,
  },
  deleteOAuthApp: {
    method: 'DELETE', path: '/admin/oauth-apps/:oauth_app_id', tag: 'admin', summary: 'Remove an OAuth app and its client secret (409 while accounts use it)', auth: 'console',
    params: OAuthAppParams, status: 204,
  },

  // §4.3 and local-service §6: browser profiles and their live login sessions.
  openProfileSession: {
    method: 'POST', path: '/profiles/:org_id', tag: 'profiles', summary: 'Create a profile (or take profile_id) and open a live login session on it', auth: 'org',
    params: OrgIdParam, body: ProfileCreateRequest, response: ProfileSessionCreated,
  },
  listProfiles: { method: 'GET', path: '/profiles/:org_id', tag: 'profiles', summary: 'List profiles', auth: 'org', params: OrgIdParam, response: ProfileList },
  listProfileSessions: {
    method: 'GET', path: '/profiles/:org_id/sessions', tag: 'profiles', summary: 'List open login sessions (Portico addition)', auth: 'org', params: OrgIdParam, response: ProfileSessionList,
  },
  closeProfileSession: {
    method: 'POST', path: '/profiles/:org_id/sessions/:session_id/close', tag: 'profiles', summary: 'Close a login session, saving the profile state', auth: 'org',
    params: ProfileSessionParams, response: ProfileSessionClosed,
  },
  deleteProfile: {
    method: 'DELETE', path: '/profiles/:org_id/:profile_id', tag: 'profiles', summary: 'Delete a profile and its saved state (409 while in use)', auth: 'org', params: ProfileParams, status: 204,
  },

  // Live view (local-service §6): the page, its frame stream and its input, credentialed by the unguessable token.
  getLiveView: {
    method: 'GET', path: '/live/:token', tag: 'live view', summary: 'The live-view page of a browser (no API key: the token is the credential)', auth: 'none',
    params: LiveViewParams, produces: { type: 'text/html', schema: z.string() },
  },
  streamLiveFrames: {
    method: 'GET', path: '/live/:token/frames', tag: 'live view', summary: 'Screen frames as server-sent events (`frame`, then `end`)', auth: 'none',
    params: LiveViewParams, produces: { type: 'text/event-stream', schema: LiveFrame },
  },
  sendLiveInput: {
    method: 'POST', path: '/live/:token/input', tag: 'live view', auth: 'none',
    summary: 'Send one mouse, wheel, key, text or navigation input to the page (CSS pixels; a navigation answers the page address)',
    params: LiveViewParams, body: LiveInput, response: LiveInputAccepted,
  },

  // The /public API of account keys; the console acts on it as the operator's default workspace (docs/decisions.md).
  // Interface §4.6 and local-service.md §5.2: browser sessions of the account key's workspace.
  createSession: {
    method: 'POST', path: '/public/sessions', tag: 'sessions', summary: 'Create a browser session with its own browser and a CDP URL', auth: 'account',
    body: SessionCreateRequest, response: Session,
  },
  listSessions: {
    method: 'GET', path: '/public/sessions', tag: 'sessions', summary: "List the workspace's sessions, newest first", auth: 'account', query: SessionListQuery, response: SessionList,
  },
  getSession: { method: 'GET', path: '/public/sessions/:session_id', tag: 'sessions', summary: 'Get a session', auth: 'account', params: SessionParams, response: Session },
  terminateSession: {
    method: 'POST', path: '/public/sessions/:session_id/terminate', tag: 'sessions', summary: 'Terminate a session: its browser closes and its CDP URL stops answering', auth: 'account',
    params: SessionParams, response: Session,
  },
  getSessionRecording: {
    method: 'GET', path: '/public/sessions/:session_id/recording', tag: 'sessions', summary: 'The session\'s screen recording (video/webm) when it was recorded', auth: 'account',
    params: SessionParams, produces: { type: 'video/webm' },
  },

  // Interface §4.5 and local-service.md §5.3: one action in a live session of the key's workspace, and the step cache.
  runSingleAction: {
    method: 'POST', path: '/public/single-actions/run-action', tag: 'single-actions', auth: 'account',
    summary: 'Run one plain-English browser action in a session (cached per id or action and page)',
    body: SingleActionRequest, response: SingleActionResponse,
  },
  listActionCache: {
    method: 'GET', path: '/public/single-actions/cache', tag: 'single-actions', summary: "The workspace's cached steps with hit and miss counts (Portico addition)", auth: 'account',
    query: ActionCacheQuery, response: ActionCacheList,
  },

  // Interface §4.7 and local-service.md §5.4: credentials, phone numbers and pushed verification codes of the workspace.
  createCredential: {
    method: 'POST', path: '/public/credentials', tag: 'credentials', summary: 'Store a credential: secrets go to the keychain, metadata to the database', auth: 'account',
    body: CredentialCreateRequest, response: Credential,
  },
  listCredentials: { method: 'GET', path: '/public/credentials', tag: 'credentials', summary: "List the workspace's credentials (never a secret)", auth: 'account', response: CredentialList },
  getCredential: {
    method: 'GET', path: '/public/credentials/:credential_id', tag: 'credentials', summary: "Get a credential's metadata", auth: 'account', params: CredentialParams, response: Credential,
  },
  deleteCredential: {
    method: 'DELETE', path: '/public/credentials/:credential_id', tag: 'credentials', summary: 'Delete a credential and its secrets', auth: 'account', params: CredentialParams, status: 204,
  },
  createPhoneNumber: {
    method: 'POST', path: '/public/phone-numbers', tag: 'credentials', summary: 'Add a phone number that receives SMS codes (a credential\'s phone_number_id)', auth: 'account',
    body: PhoneNumberCreateRequest, response: PhoneNumber,
  },
  listPhoneNumbers: { method: 'GET', path: '/public/phone-numbers', tag: 'credentials', summary: "List the workspace's phone numbers", auth: 'account', response: PhoneNumberList },
  deletePhoneNumber: {
    method: 'DELETE', path: '/public/phone-numbers/:phone_number_id', tag: 'credentials', summary: 'Delete a phone number; 409 naming the credentials that still receive codes on it', auth: 'account',
    params: PhoneNumberParams, status: 204,
  },
  pushVerificationCode: {
    method: 'POST', path: '/public/verification-codes', tag: 'credentials', summary: 'Push a verification code (or a whole SMS/mail text) to the job waiting for it', auth: 'account',
    body: VerificationCodeRequest, response: VerificationCodeResponse,
  },

  // Interface §4.7 and local-service.md §5.4: the caller's connected accounts, and the provider's way back.
  connectAccount: {
    method: 'POST', path: '/public/connected-accounts', tag: 'connected-accounts', auth: 'account',
    summary: 'Start connecting an account: open authorization_url in a browser; the provider returns to /oauth/callback',
    body: ConnectRequest, response: ConnectResponse,
  },
  listConnectedAccounts: {
    method: 'GET', path: '/public/connected-accounts', tag: 'connected-accounts', summary: "The caller's own connected accounts (never their tokens)", auth: 'account', response: ConnectedAccountList,
  },
  deleteConnectedAccount: {
    method: 'DELETE', path: '/public/connected-accounts/:account_id', tag: 'connected-accounts', summary: 'Forget a connected account and its tokens', auth: 'account',
    params: ConnectedAccountParams, status: 204,
  },
  // RFC 8252 loopback redirect: no API key, the single-use `state` is the authentication; always an HTML page, errors included.
  completeOAuth: {
    method: 'GET', path: '/oauth/callback', tag: 'connected-accounts', auth: 'none',
    summary: 'Where the OAuth provider returns the browser: exchanges the code and shows "connected, you can close this tab"',
    produces: { type: 'text/html' },
  },

  // local-service.md §5.5 and interface §2.8, §4.7: workflows of the account key's workspace and their executions.
  createWorkflow: {
    method: 'POST', path: '/public/workflows', tag: 'workflows', summary: 'Create a workflow: single actions and portal jobs run in order in one session', auth: 'account',
    body: WorkflowCreateRequest, response: Workflow,
  },
  listWorkflows: { method: 'GET', path: '/public/workflows', tag: 'workflows', summary: "The workspace's workflows, newest first", auth: 'account', response: WorkflowList },
  runWorkflow: {
    method: 'POST', path: '/public/workflows/:workflow_id/run', tag: 'workflows', summary: 'Run a workflow (in a given session, or one created and terminated for the run)', auth: 'account',
    params: WorkflowParams, body: WorkflowRunRequest, response: WorkflowExecution,
  },
  listWorkflowExecutions: {
    method: 'GET', path: '/public/workflows/:workflow_id', tag: 'workflows', summary: "The workflow's executions by every member of its workspace, most recent first", auth: 'account',
    // Interface §7: a caller outside the workflow's workspace (a removed member too) gets its own 403 text.
    membership: 'route',
    params: WorkflowParams, response: WorkflowExecutionList,
  },
  getWorkflowExecution: {
    method: 'GET', path: '/public/workflows/:workflow_id/executions/:execution_id', tag: 'workflows', summary: 'One execution with its step journal', auth: 'account',
    params: ExecutionParams, response: WorkflowExecutionDetail,
  },
  resumeWorkflowExecution: {
    method: 'POST', path: '/public/workflows/:workflow_id/executions/:execution_id/resume', tag: 'workflows', auth: 'account',
    summary: 'Re-run a failed execution from its first failed step, in the same session while it lives',
    params: ExecutionParams, body: WorkflowResumeRequest, response: WorkflowExecution,
  },
  getWorkflowStepScreenshot: {
    method: 'GET', path: '/public/workflows/:workflow_id/executions/:execution_id/steps/:index/screenshot', tag: 'workflows', auth: 'account',
    summary: "The page after one step, as image/png (the console's timeline)",
    params: StepScreenshotParams, produces: { type: 'image/png' },
  },

  // The sample portals of an organization and what the sample site received (docs/api.md, "Samples").
  listSamples: {
    method: 'GET', path: '/sample-portals/:org_id', tag: 'samples', summary: 'List the sample portals and the data "Run the sample" sends', auth: 'org', params: OrgIdParam, response: SampleList,
  },
  addSamples: {
    method: 'POST', path: '/sample-portals/:org_id', tag: 'samples', summary: 'Create again the sample portals that are missing', auth: 'org', params: OrgIdParam, response: SampleList,
  },
  getSampleSubmission: {
    method: 'GET', path: '/sample-portals/:org_id/submissions/:reference', tag: 'samples', summary: 'What the sample site received for one application', auth: 'org',
    params: SampleSubmissionParams, response: SampleSubmission,
  },
} as const satisfies Record<string, OperationDeclaration>;

export type Operations = typeof operations;

/** An operation's name: its key in `operations` and its OpenAPI `operationId`. */
export type OperationName = keyof Operations;

/** The names of the operations with OpenAPI tag `T`: the handlers one `api/routes/*` file provides. */
export type OperationsTagged<T extends string> = { [N in OperationName]: Operations[N]['tag'] extends T ? N : never }[OperationName];
