import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import { newId } from '../../../domain/shared/ids.ts';
import type { EdgeStep } from '../runner.ts';

/**
 * One audit record for every write, whatever its outcome (a REST request of any method but
 * GET and HEAD, a GraphQL mutation; routing and the GraphQL document step mark them): who,
 * what, the answer's status, and the objects the operation read or wrote (the tenant scope
 * reports them as it goes), the booking among them filing the record in the booking's
 * timeline. A refusal before the caller is known has no one to file it under.
 */
export function auditStep(tenantDb: TenantDbFactory): EdgeStep {
  return {
    name: 'audit',
    run() {},
    answered(ctx, response) {
      const principal = ctx.principal;
      if (!principal || !ctx.audit.write) return;
      // Written, not read back (createMany returns no row).
      return tenantDb(principal).auditLog.createMany({
        data: {
          id: newId('audit'),
          businessId: principal.businessId,
          livemode: principal.livemode,
          requestId: ctx.requestId,
          apiKeyId: principal.keyId,
          memberId: principal.memberId,
          appId: principal.app?.id ?? null,
          method: ctx.request.method,
          path: ctx.request.pathname,
          operation: ctx.audit.operation,
          status: response.status,
          bookingId: ctx.audit.bookingId,
          objects: [...ctx.audit.objects],
        },
      }).then(() => undefined);
    },
  };
}
