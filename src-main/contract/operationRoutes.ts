/**
 * Every HTTP operation of the API by name, as `METHOD /url` exactly as the route table registers it.
 * This file carries no schemas so the console bundle stays free of zod; `operations.ts` pairs each name
 * with the very schema objects the route uses, and `test/tooling/contract-client.test.ts` checks both
 * against the running route table.
 */
export const operationRoutes = {
  getHealth: 'GET /health',

  createPortal: 'POST /portals/:org_id',
  listPortals: 'GET /portals/:org_id',
  getPortal: 'GET /portals/:org_id/:endpoint_name',
  updatePortal: 'PATCH /portals/:org_id/:endpoint_name',
  deletePortal: 'DELETE /portals/:org_id/:endpoint_name',

  uploadSkill: 'POST /skills/:org_id',
  listSkills: 'GET /skills/:org_id',
  getSkillMarkdown: 'GET /skills/:org_id/:skill_id/skill-md',
  deleteSkill: 'DELETE /skills/:org_id/:skill_id',

  uploadDocuments: 'POST /documents/:org_id',
  listDocumentBundles: 'GET /documents/:org_id',
  getDocumentBundle: 'GET /documents/:org_id/:document_bundle_id',
  deleteDocumentBundle: 'DELETE /documents/:org_id/:document_bundle_id',
  previewDocumentExtraction: 'POST /documents/:org_id/:document_bundle_id/extract',

  startJob: 'POST /jobs/:org_id/:endpoint_name/start',
  getJobStatus: 'GET /task/:org_id/:endpoint_name/status',
  answerJob: 'POST /jobs/:org_id/:endpoint_name/answer',
  cancelJob: 'POST /jobs/:org_id/:endpoint_name/cancel',
  listJobs: 'GET /jobs/:org_id',
  listJobSummaries: 'GET /jobs/:org_id/summary',
  getJobScreenshots: 'GET /task/:org_id/:endpoint_name/screenshots',
  getJobScreenshot: 'GET /task/:org_id/:endpoint_name/screenshots/:index',
  getJobDownloads: 'GET /task/:org_id/:endpoint_name/downloads',
  getJobRecording: 'GET /task/:org_id/:endpoint_name/recording',
  streamJobLogs: 'GET /task/:org_id/:endpoint_name/logs',

  createWebhookKey: 'POST /webhooks/:org_id/key',
  getWebhookKey: 'GET /webhooks/:org_id/key',
  revokeWebhookKey: 'DELETE /webhooks/:org_id/key',
  listDeliveries: 'GET /webhooks/:org_id/deliveries',
  redeliver: 'POST /webhooks/:org_id/deliveries/:delivery_id/redeliver',

  listOrgs: 'GET /admin/orgs',
  createOrg: 'POST /admin/orgs',
  listOrgKeys: 'GET /admin/orgs/:org_id/keys',
  createOrgKey: 'POST /admin/orgs/:org_id/keys',
  revokeOrgKey: 'POST /admin/orgs/:org_id/keys/:key_id/revoke',
  listProviders: 'GET /admin/providers',
  updateProvider: 'PUT /admin/providers/:provider',
  deleteProviderKey: 'DELETE /admin/providers/:provider',
  testProvider: 'POST /admin/providers/:provider/test',
  getSettings: 'GET /admin/settings',
  updateSettings: 'PATCH /admin/settings',

  openProfileSession: 'POST /profiles/:org_id',
  listProfiles: 'GET /profiles/:org_id',
  listProfileSessions: 'GET /profiles/:org_id/sessions',
  closeProfileSession: 'POST /profiles/:org_id/sessions/:session_id/close',
  deleteProfile: 'DELETE /profiles/:org_id/:profile_id',

  // The console acts on /public as the operator's default workspace (docs/decisions.md).
  listSessions: 'GET /public/sessions',
  createSession: 'POST /public/sessions',
  terminateSession: 'POST /public/sessions/:session_id/terminate',
  listActionCache: 'GET /public/single-actions/cache',
  listCredentials: 'GET /public/credentials',
  createCredential: 'POST /public/credentials',
  deleteCredential: 'DELETE /public/credentials/:credential_id',
  createPhoneNumber: 'POST /public/phone-numbers',
  listPhoneNumbers: 'GET /public/phone-numbers',
  deletePhoneNumber: 'DELETE /public/phone-numbers/:phone_number_id',
  listConnectedAccounts: 'GET /public/connected-accounts',
  connectAccount: 'POST /public/connected-accounts',
  deleteConnectedAccount: 'DELETE /public/connected-accounts/:account_id',
  listWorkflows: 'GET /public/workflows',
  createWorkflow: 'POST /public/workflows',
  runWorkflow: 'POST /public/workflows/:workflow_id/run',
  listWorkflowExecutions: 'GET /public/workflows/:workflow_id',
  getWorkflowExecution: 'GET /public/workflows/:workflow_id/executions/:execution_id',
  resumeWorkflowExecution: 'POST /public/workflows/:workflow_id/executions/:execution_id/resume',
  getWorkflowStepScreenshot: 'GET /public/workflows/:workflow_id/executions/:execution_id/steps/:index/screenshot',

  listOAuthApps: 'GET /admin/oauth-apps',
  addOAuthApp: 'POST /admin/oauth-apps',
  deleteOAuthApp: 'DELETE /admin/oauth-apps/:oauth_app_id',

  listSamples: 'GET /sample-portals/:org_id',
  addSamples: 'POST /sample-portals/:org_id',
  getSampleSubmission: 'GET /sample-portals/:org_id/submissions/:reference',
} as const;

export type OperationName = keyof typeof operationRoutes;
