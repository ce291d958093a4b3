import { z } from 'zod';
import type { ConnectedApp } from '../../generated/prisma/client.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
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
    return toPage(await ctx.db.connectedApp.findMany({ ...query, where: { ...p.where, ...active }, orderBy: p.orderBy, take: p.take }), p);
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
