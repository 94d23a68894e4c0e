import { createReadStream } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { WorkflowService } from '../../engine/workflows/workflowService.ts';
import type { AccountPrincipal } from '../auth.ts';
import type { Handlers } from '../operationTable.ts';

const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

const actorOf = (principal: AccountPrincipal) => ({
  userId: principal.userId,
  workspaceId: principal.workspaceId,
  orgId: principal.orgId,
});

/** local-service.md §5.5 and interface §2.8, §4.7: workflows of the account key's workspace and their executions. */
export function workflowHandlers(workflows: WorkflowService): Handlers<OperationsTagged<'workflows'>> {
  return {
    createWorkflow: ({ principal, body }) => workflows.create(actorOf(principal), body),
    listWorkflows: ({ principal }) => workflows.list(principal.workspaceId),
    runWorkflow: ({ principal, params, body, request }) =>
      workflows.run(actorOf(principal), params.workflow_id, body, originOf(request)),
    listWorkflowExecutions: ({ principal, params }) =>
      workflows.executions({ ...actorOf(principal), member: principal.member }, params.workflow_id),
    getWorkflowExecution: ({ principal, params, request }) =>
      workflows.execution(principal.workspaceId, params.workflow_id, params.execution_id, originOf(request)),
    resumeWorkflowExecution: ({ principal, params, body }) =>
      workflows.resume(actorOf(principal), params.workflow_id, params.execution_id, body),
    getWorkflowStepScreenshot: ({ principal, params, reply }) => {
      const path = workflows.screenshot(principal.workspaceId, params.workflow_id, params.execution_id, params.index);
      reply.type('image/png').header('cache-control', 'private, max-age=3600').send(createReadStream(path));
    },
  };
}
