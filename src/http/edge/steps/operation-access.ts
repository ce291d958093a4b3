import { assertAccess } from '../../../domain/access/permissions.ts';
import type { EdgeStep } from '../runner.ts';

/**
 * Who may call an operation is checked before its input is read, so a refused key gets its
 * 401/403, never a 422 about input it was not allowed to send. The rule is each operation's
 * own declaration (`access`), which the operation checks again when it runs.
 */
export function operationAccessStep(): EdgeStep {
  return {
    name: 'operation-access',
    run(ctx) {
      const principal = ctx.principal;
      if (principal && ctx.operations) for (const op of ctx.operations) assertAccess(principal, op.access);
    },
  };
}
