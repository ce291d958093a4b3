import { getOperationAST } from 'graphql';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import { newId } from '../../domain/shared/ids.ts';
import type { EdgePlugin, ServerContext } from './context.ts';

/**
 * One audit record for every write, whatever its outcome (REST POST and DELETE, GraphQL
 * mutations): who, what, the answer's status, and the objects the operation read or wrote
 * (the tenant scope reports them as it goes), the booking among them filing the record in
 * the booking's timeline.
 */
export function useAudit(tenantDb: TenantDbFactory): EdgePlugin {
  return {
    onExecute({ args }) {
      const edge = args.contextValue as unknown as ServerContext;
      // REST: the route decided already (a write is any method but GET).
      if (edge.kind === 'rest') return;
      const audit = edge.audit;
      const operation = getOperationAST(args.document, args.operationName);
      if (!audit || operation?.operation !== 'mutation') return;
      audit.write = true;
      const first = operation.selectionSet.selections[0];
      audit.operation ??= first?.kind === 'Field' ? first.name.value : null;
    },
    onResponse({ request, response, serverContext }) {
      const edge = serverContext as ServerContext;
      const principal = edge.principal;
      if (!principal || !edge.audit.write) return;
      const url = new URL(request.url);
      // Written, not read back (createMany returns no row).
      return tenantDb(principal).auditLog.createMany({
        data: {
          id: newId('audit'),
          businessId: principal.businessId,
          livemode: principal.livemode,
          requestId: edge.requestId,
          apiKeyId: principal.keyId,
          memberId: principal.memberId,
          method: request.method,
          path: url.pathname,
          operation: edge.audit.operation,
          status: response.status,
          bookingId: edge.audit.bookingId,
          objects: [...edge.audit.objects],
        },
      }).then(() => undefined);
    },
  };
}
