import type { z } from 'zod';
import { ApiKeyParams, ApiKeyCreated, ApiKeyListResponse, ApiKeyRevokeResponse, ConsoleSettings, ConsoleSettingsUpdate, Org, OrgCreateRequest, OrgList, ProviderKeyRequest, ProviderList, ProviderParams, ProviderStatus, ProviderTestResult, ScreenshotParams } from './console.ts';
import { HealthResponse, OrgIdParam } from './common.ts';
import { DocumentBundle, DocumentBundleCreated, DocumentBundleList, DocumentBundleListQuery, DocumentBundleParams, DocumentExtraction, DocumentExtractQuery } from './document.ts';
import { Credential, CredentialCreateRequest, CredentialList, CredentialParams, PhoneNumber, PhoneNumberCreateRequest, PhoneNumberList, PhoneNumberParams } from './credential.ts';
import { AnswerRequest, JobActionResponse, JobIdQuery, JobList, JobListQuery, JobLogsQuery, JobStartRequest, JobStartResponse, JobStatusResponse, JobSummaryList } from './job.ts';
import { ConnectedAccountList, ConnectedAccountParams, ConnectRequest, ConnectResponse, OAuthApp, OAuthAppAddRequest, OAuthAppList, OAuthAppParams } from './oauth.ts';
import type { OperationName } from './operationRoutes.ts';
import { Portal, PortalCreateRequest, PortalList, PortalParams, PortalUpdateRequest } from './portal.ts';
import { SampleList, SampleSubmission, SampleSubmissionParams } from './sample.ts';
import { ProfileCreateRequest, ProfileList, ProfileParams, ProfileSessionClosed, ProfileSessionCreated, ProfileSessionList, ProfileSessionParams } from './profile.ts';
import { Session, SessionCreateRequest, SessionList, SessionListQuery, SessionParams } from './session.ts';
import { ActionCacheList, ActionCacheQuery } from './singleAction.ts';
import { Skill, SkillList, SkillListQuery, SkillParams, SkillUploadQuery } from './skill.ts';
import { DeliveryList, DeliveryListQuery, DeliveryParams, WebhookDelivery, WebhookKeyCreated, WebhookKeyRevoked, WebhookKeyStatus } from './webhook.ts';
import {
  ExecutionParams, StepScreenshotParams, Workflow, WorkflowCreateRequest, WorkflowExecution, WorkflowExecutionDetail, WorkflowExecutionList,
  WorkflowList, WorkflowParams, WorkflowResumeRequest, WorkflowRunRequest,
} from './workflow.ts';

/**
 * The schemas of one operation, the same objects its route validates and serializes with: `params`,
 * `query` and `body` are what a caller sends, `response` the JSON body it gets (absent for 204 and for
 * bodies that are not JSON: files, archives, event streams, text).
 */
export interface OperationSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
}

/** Each operation of `operationRoutes` with its schemas; a name missing here or extra is a type error. */
export const operations = {
  getHealth: { response: HealthResponse },

  createPortal: { params: OrgIdParam, body: PortalCreateRequest, response: Portal },
  listPortals: { params: OrgIdParam, response: PortalList },
  getPortal: { params: PortalParams, response: Portal },
  updatePortal: { params: PortalParams, body: PortalUpdateRequest, response: Portal },
  deletePortal: { params: PortalParams },

  uploadSkill: { params: OrgIdParam, query: SkillUploadQuery, response: Skill },
  listSkills: { params: OrgIdParam, query: SkillListQuery, response: SkillList },
  getSkillMarkdown: { params: SkillParams },
  deleteSkill: { params: SkillParams },
  uploadDocuments: { params: OrgIdParam, response: DocumentBundleCreated },
  listDocumentBundles: { params: OrgIdParam, query: DocumentBundleListQuery, response: DocumentBundleList },
  getDocumentBundle: { params: DocumentBundleParams, response: DocumentBundle },
  deleteDocumentBundle: { params: DocumentBundleParams },
  previewDocumentExtraction: { params: DocumentBundleParams, query: DocumentExtractQuery, response: DocumentExtraction },

  startJob: { params: PortalParams, body: JobStartRequest, response: JobStartResponse },
  getJobStatus: { params: PortalParams, query: JobIdQuery, response: JobStatusResponse },
  answerJob: { params: PortalParams, query: JobIdQuery, body: AnswerRequest, response: JobActionResponse },
  cancelJob: { params: PortalParams, query: JobIdQuery, response: JobActionResponse },
  listJobs: { params: OrgIdParam, query: JobListQuery, response: JobList },
  listJobSummaries: { params: OrgIdParam, query: JobListQuery, response: JobSummaryList },
  getJobScreenshots: { params: PortalParams, query: JobIdQuery },
  getJobScreenshot: { params: ScreenshotParams, query: JobIdQuery },
  getJobDownloads: { params: PortalParams, query: JobIdQuery },
  getJobRecording: { params: PortalParams, query: JobIdQuery },
  streamJobLogs: { params: PortalParams, query: JobLogsQuery },

  createWebhookKey: { params: OrgIdParam, response: WebhookKeyCreated },
  getWebhookKey: { params: OrgIdParam, response: WebhookKeyStatus },
  revokeWebhookKey: { params: OrgIdParam, response: WebhookKeyRevoked },
  listDeliveries: { params: OrgIdParam, query: DeliveryListQuery, response: DeliveryList },
  redeliver: { params: DeliveryParams, response: WebhookDelivery },

  listOrgs: { response: OrgList },
  createOrg: { body: OrgCreateRequest, response: Org },
  listOrgKeys: { params: OrgIdParam, response: ApiKeyListResponse },
  createOrgKey: { params: OrgIdParam, response: ApiKeyCreated },
  revokeOrgKey: { params: ApiKeyParams, response: ApiKeyRevokeResponse },
  listProviders: { response: ProviderList },
  updateProvider: { params: ProviderParams, body: ProviderKeyRequest, response: ProviderStatus },
  deleteProviderKey: { params: ProviderParams },
  testProvider: { params: ProviderParams, response: ProviderTestResult },
  getSettings: { response: ConsoleSettings },
  updateSettings: { body: ConsoleSettingsUpdate, response: ConsoleSettings },

  openProfileSession: { params: OrgIdParam, body: ProfileCreateRequest, response: ProfileSessionCreated },
  listProfiles: { params: OrgIdParam, response: ProfileList },
  listProfileSessions: { params: OrgIdParam, response: ProfileSessionList },
  closeProfileSession: { params: ProfileSessionParams, response: ProfileSessionClosed },
  deleteProfile: { params: ProfileParams },

  listSessions: { query: SessionListQuery, response: SessionList },
  createSession: { body: SessionCreateRequest, response: Session },
  terminateSession: { params: SessionParams, response: Session },
  listActionCache: { query: ActionCacheQuery, response: ActionCacheList },
  listCredentials: { response: CredentialList },
  createCredential: { body: CredentialCreateRequest, response: Credential },
  deleteCredential: { params: CredentialParams },
  createPhoneNumber: { body: PhoneNumberCreateRequest, response: PhoneNumber },
  listPhoneNumbers: { response: PhoneNumberList },
  deletePhoneNumber: { params: PhoneNumberParams },
  listConnectedAccounts: { response: ConnectedAccountList },
  connectAccount: { body: ConnectRequest, response: ConnectResponse },
  deleteConnectedAccount: { params: ConnectedAccountParams },
  listWorkflows: { response: WorkflowList },
  createWorkflow: { body: WorkflowCreateRequest, response: Workflow },
  runWorkflow: { params: WorkflowParams, body: WorkflowRunRequest, response: WorkflowExecution },
  listWorkflowExecutions: { params: WorkflowParams, response: WorkflowExecutionList },
  getWorkflowExecution: { params: ExecutionParams, response: WorkflowExecutionDetail },
  resumeWorkflowExecution: { params: ExecutionParams, body: WorkflowResumeRequest, response: WorkflowExecution },
  getWorkflowStepScreenshot: { params: StepScreenshotParams },

  listOAuthApps: { response: OAuthAppList },
  addOAuthApp: { body: OAuthAppAddRequest, response: OAuthApp },
  deleteOAuthApp: { params: OAuthAppParams },

  listSamples: { params: OrgIdParam, response: SampleList },
  addSamples: { params: OrgIdParam, response: SampleList },
  getSampleSubmission: { params: SampleSubmissionParams, response: SampleSubmission },
} as const satisfies Record<OperationName, OperationSchemas>;

export type Operations = typeof operations;
