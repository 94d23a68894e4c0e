import { createReadStream } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import {
  ExecutionParams, StepScreenshotParams, Workflow, WorkflowCreateRequest, WorkflowExecution, WorkflowExecutionDetail, WorkflowExecutionList,
  WorkflowList, WorkflowParams, WorkflowResumeRequest, WorkflowRunRequest,
} from '../../contract/workflow.ts';
import type { WorkflowService } from '../../engine/workflows/workflowService.ts';
import type { AccountPrincipal } from '../auth.ts';
import type { RouteTable } from '../routeTable.ts';

const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

const actorOf = (principal: AccountPrincipal) => ({ userId: principal.userId, workspaceId: principal.workspaceId, orgId: principal.orgId });

/** local-service.md §5.5 and interface §2.8, §4.7: workflows of the account key's workspace and their executions. */
export function addWorkflowRoutes(routes: RouteTable, workflows: WorkflowService): void {
  routes.add({
    method: 'POST', url: '/public/workflows', tag: 'workflows', summary: 'Create a workflow: single actions and portal jobs run in order in one session', auth: 'account',
    body: WorkflowCreateRequest, response: Workflow,
    handler: ({ principal, body }) => workflows.create(actorOf(principal), body),
  });
  routes.add({
    method: 'GET', url: '/public/workflows', tag: 'workflows', summary: "The workspace's workflows, newest first", auth: 'account',
    response: WorkflowList,
    handler: ({ principal }) => workflows.list(principal.workspaceId),
  });
  routes.add({
    method: 'POST', url: '/public/workflows/:workflow_id/run', tag: 'workflows', summary: 'Run a workflow (in a given session, or one created and terminated for the run)', auth: 'account',
    params: WorkflowParams, body: WorkflowRunRequest, response: WorkflowExecution,
    handler: ({ principal, params, body, request }) => workflows.run(actorOf(principal), params.workflow_id, body, originOf(request)),
  });
  routes.add({
    method: 'GET', url: '/public/workflows/:workflow_id', tag: 'workflows', summary: "The workflow's executions by every member of its workspace, most recent first", auth: 'account',
    // Interface §7: a caller outside the workflow's workspace (a removed member too) gets its own 403 text.
    membership: 'route',
    params: WorkflowParams, response: WorkflowExecutionList,
    handler: ({ principal, params }) => workflows.executions({ ...actorOf(principal), member: principal.member }, params.workflow_id),
  });
  routes.add({
    method: 'GET', url: '/public/workflows/:workflow_id/executions/:execution_id', tag: 'workflows', summary: 'One execution with its step journal', auth: 'account',
    params: ExecutionParams, response: WorkflowExecutionDetail,
    handler: ({ principal, params, request }) => workflows.execution(principal.workspaceId, params.workflow_id, params.execution_id, originOf(request)),
  });
  routes.add({
    method: 'POST', url: '/public/workflows/:workflow_id/executions/:execution_id/resume', tag: 'workflows', summary: 'Re-run a failed execution from its first failed step, in the same session while it lives', auth: 'account',
    params: ExecutionParams, body: WorkflowResumeRequest, response: WorkflowExecution,
    handler: ({ principal, params, body }) => workflows.resume(actorOf(principal), params.workflow_id, params.execution_id, body),
  });
  routes.add({
    method: 'GET', url: '/public/workflows/:workflow_id/executions/:execution_id/steps/:index/screenshot', tag: 'workflows', summary: "The page after one step, as image/png (the console's timeline)", auth: 'account',
    params: StepScreenshotParams, produces: { type: 'image/png' },
    handler: ({ principal, params, reply }) => {
      const path = workflows.screenshot(principal.workspaceId, params.workflow_id, params.execution_id, params.index);
      reply.type('image/png').header('cache-control', 'private, max-age=3600').send(createReadStream(path));
    },
  });
}
