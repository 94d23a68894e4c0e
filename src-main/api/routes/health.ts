import type { OperationsTagged } from '../../contract/operations.ts';
import type { Handlers } from '../operationTable.ts';

/** Liveness for scripts and the README check. */
export function healthHandlers(version: string): Handlers<OperationsTagged<'meta'>> {
  return {
    getHealth: () => ({ status: 'ok' as const, version }),
  };
}
