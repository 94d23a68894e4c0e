import type { OperationsTagged } from '../../contract/operations.ts';
import type { ActionService } from '../../engine/actions/actionService.ts';
import type { Handlers } from '../operationTable.ts';

/** Interface §4.5 and local-service.md §5.3: one action in a live session of the key's workspace, and the step cache. */
export function singleActionHandlers(actions: ActionService): Handlers<OperationsTagged<'single-actions'>> {
  return {
    runSingleAction: ({ principal, body }) => actions.run(principal.workspaceId, body),
    listActionCache: ({ principal, query }) => actions.listCache(principal.workspaceId, query),
  };
}
