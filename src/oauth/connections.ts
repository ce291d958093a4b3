import { connectionOfGrant, type OAuthTenants } from './adapter.ts';
import { presentConnectedApp } from '../domain/apps/connected-apps.ts';
import { recordEvent } from '../domain/events/event.service.ts';
import { forgetCachedPrincipals } from '../platform/api-keys.ts';
import { newId } from '../domain/shared/ids.ts';

/**
 * The library revoked a grant (a reused code or refresh token, or the app revoking its refresh
 * token, RFC 7009): the business's connection to the app ends with it (app.deauthorized).
 */
export async function endConnection(tenants: OAuthTenants, grantId: string): Promise<void> {
  const connection = await connectionOfGrant(tenants, grantId);
  if (!connection || connection.revokedAt) return;
  const tenant = { businessId: connection.businessId, livemode: connection.livemode };
  await tenants.tenantDb(tenant).$transaction(async (tx) => {
    const { count } = await tx.connectedApp.updateMany({ where: { id: connection.id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (count !== 1) return;
    const row = await tx.connectedApp.findUniqueOrThrow({ where: { id: connection.id } });
    await recordEvent(tx, { ...tenant, requestId: newId('request'), idempotencyKey: null }, { type: 'app.deauthorized', object: presentConnectedApp(row, connection.app.name) });
  });
  forgetCachedPrincipals();
}
