import { z } from 'zod';
import type { ConnectedApp } from '../../generated/prisma/client.ts';
import { tenantLocks, type TenantDb } from '../../db/tenant-db.ts';
import { originOf, recordEvent, type EventOrigin } from '../events/event.service.ts';
import { newId } from '../shared/ids.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { present } from '../shared/presenter.ts';
import { id } from '../shared/validation.ts';
import { CONNECTED_APP_FIELDS } from './app.fields.ts';

/** A connection as REST answers and events show it. */
export function presentConnectedApp(row: ConnectedApp, appName: string) {
  return present('connected_app', CONNECTED_APP_FIELDS, row, { app_name: appName });
}

const active = { revokedAt: null };

export const listConnectedApps = defineOperation({
  name: 'connectedApps',
  summary: 'List connected apps',
  description: "The OAuth apps connected to this business in the key's environment, with the scopes each was granted, newest first.",
  access: { permission: 'business:read' },
  args: z.object({}),
  errors: [],
  async run(ctx, _args, { page, query }) {
    const p = pageQuery(page ?? {});
    // A deleted app's connections are over for the business too (its tokens stopped with it).
    return toPage(await ctx.db.connectedApp.findMany({ ...query, where: { ...p.where, ...active, app: { deletedAt: null } }, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const disconnectApp = defineOperation({
  name: 'disconnectApp',
  summary: 'Disconnect an app',
  description:
    "Ends the connection (app.deauthorized): the app's access and refresh tokens for this business stop working at once (within 5 seconds in other API processes). Answers the connection as it was.",
  access: { permission: 'business:write' },
  args: z.object({ id: id('The connection (capp_...).') }),
  errors: [],
  example: { id: 'capp_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args) {
    const current = await found(ctx.db.connectedApp.findFirst({ where: { id: args.id, ...active }, include: { app: { select: { name: true } } } }), 'connected app', args.id);
    const origin = originOf(ctx);
    const ended = await ctx.db.$transaction(async (tx) => {
      const { count } = await tx.connectedApp.updateMany({ where: { id: current.id, ...active }, data: { revokedAt: ctx.now() } });
      if (count !== 1) throw CommonErrors.resourceMissing('connected app', current.id);
      const row = await tx.connectedApp.findUniqueOrThrow({ where: { id: current.id } });
      await recordEvent(tx, origin, { type: 'app.deauthorized', object: presentConnectedApp(row, current.app.name) });
      return row;
    });
    ctx.onAccessChanged();
    return { ...ended, app: { name: current.app.name } };
  },
});

/** The grant a connection stands on: the authorization server's (src/oauth/), made or updated by `saveGrant`. */
export interface ConnectionGrant {
  /**
   * The grant of the business's connection to the app with exactly `scopes`: the connection's
   * current grant (`existingGrantId`) updated when the server still has it, else a new one.
   * Answers the grant's id.
   */
  saveGrant(existingGrantId: string | null): Promise<string>;
}

/**
 * An owner or admin approved the app for the business (the consent page): the business's one
 * active connection to the app in this environment, with exactly the scopes of this approval.
 * Approving the same app again updates that connection (its scopes, who approved, its grant)
 * instead of adding a second one; after a disconnection a new one begins. app.authorized
 * either way, in the transaction of the change.
 *
 * The grant is saved before the transaction (the authorization server's storage is not the
 * tenant's, and the embedded database has one connection, which a transaction holds). Two
 * approvals at once are serialized in the transaction: one that finds the connection changed
 * since it read it starts again from the connection as it is now; and the database holds one
 * active connection per business, environment and app whatever happens (a partial unique index).
 */
export async function connectApp(db: TenantDb, origin: EventOrigin, input: { app: { id: string; name: string }; memberId: string; scopes: string[]; grant: ConnectionGrant }): Promise<ConnectedApp> {
  const where = { appId: input.app.id, ...active };
  for (let attempt = 1; ; attempt++) {
    const seen = await db.connectedApp.findFirst({ where, select: { id: true, grantId: true } });
    const grantId = await input.grant.saveGrant(seen?.grantId ?? null);
    const connected = await db.$transaction(async (tx) => {
      await tenantLocks(tx).$lockKey(`connect-app:${input.app.id}`);
      const current = await tx.connectedApp.findFirst({ where });
      if ((current?.id ?? null) !== (seen?.id ?? null) && attempt < 3) return null;
      const row = current
        ? await tx.connectedApp.update({ where: { id: current.id }, data: { scopes: input.scopes, memberId: input.memberId, grantId } })
        : await tx.connectedApp.create({
            data: { id: newId('connectedApp'), businessId: origin.businessId, livemode: origin.livemode, appId: input.app.id, memberId: input.memberId, scopes: input.scopes, grantId },
          });
      await recordEvent(tx, origin, { type: 'app.authorized', object: presentConnectedApp(row, input.app.name) });
      return row;
    });
    if (connected) return connected;
  }
}
