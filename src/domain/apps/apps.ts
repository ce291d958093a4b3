import { z } from 'zod';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';
import { AppErrors } from './app.errors.ts';
import { appName, appScopes, assertRedirectUris, redirectUris } from './app-input.ts';
import { hashClientSecret, newClientCredentials } from './client-credentials.ts';

const EXAMPLE_ID = 'app_01jd3m4k5n6p7q8r9s0t1v2w3x';
const appId = id('The app (app_...).');
const live = { deletedAt: null };

export const listApps = defineOperation({
  name: 'apps',
  summary: 'List OAuth apps',
  description: "The OAuth apps this business registered in the key's environment, newest first.",
  access: { permission: 'business:read' },
  args: z.object({}),
  errors: [],
  async run(ctx, _args, { page }) {
    const p = pageQuery(page ?? {});
    return toPage(await ctx.db.app.findMany({ where: { ...p.where, ...live }, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const getApp = defineOperation({
  name: 'app',
  summary: 'Retrieve an OAuth app',
  description: 'An OAuth app this business registered (its client_secret is shown only when it is created).',
  access: { permission: 'business:read' },
  args: z.object({ id: appId }),
  errors: [],
  example: { id: EXAMPLE_ID },
  run: (ctx, args) => found(ctx.db.app.findFirst({ where: { id: args.id, ...live } }), 'app', args.id),
});

export const createApp = defineOperation({
  name: 'createApp',
  summary: 'Register an OAuth app',
  description:
    'Registers an OAuth app: a platform that connects to rental businesses, each granting it chosen permissions (authorization code with PKCE at /oauth/authorize and /oauth/token). The answer alone carries the client_secret: keep it. A test-mode app connects only to businesses in test mode.',
  access: { permission: 'business:write' },
  args: z.object({
    input: z.object({ name: appName, redirectUris, scopes: appScopes }).meta({ id: 'CreateAppInput' }),
  }),
  errors: [AppErrors.redirectUriNotAllowed],
  example: { input: { name: 'Fleet Telematics', redirectUris: ['https://telematics.example.com/oauth/callback'], scopes: ['vehicles:read', 'bookings:read'] } },
  async run(ctx, { input }) {
    const uris = assertRedirectUris(input.redirectUris, ctx.tenant.livemode);
    const { clientId, clientSecret } = newClientCredentials(ctx.tenant.livemode);
    const app = await ctx.db.app.create({
      data: { id: newId('oauthApp'), ...ctx.tenant, name: input.name, clientId, clientSecretHash: hashClientSecret(clientSecret), redirectUris: uris, scopes: [...new Set(input.scopes)] },
    });
    return { ...app, clientSecret };
  },
});

export const updateApp = defineOperation({
  name: 'updateApp',
  summary: 'Update an OAuth app',
  description: 'Changes only the fields sent. Connections already granted keep their scopes; new authorizations may ask only for the new ones.',
  access: { permission: 'business:write' },
  args: z.object({
    id: appId,
    input: z.object({ name: appName.nullish(), redirectUris: redirectUris.nullish(), scopes: appScopes.nullish() }).meta({ id: 'UpdateAppInput' }).nullish(),
  }),
  errors: [AppErrors.redirectUriNotAllowed],
  example: { id: EXAMPLE_ID, input: { redirectUris: ['https://telematics.example.com/oauth/callback', 'https://staging.telematics.example.com/oauth/callback'] } },
  async run(ctx, args) {
    const input = args.input ?? {};
    const current = await found(ctx.db.app.findFirst({ where: { id: args.id, ...live } }), 'app', args.id);
    return ctx.db.app.update({
      where: { id: current.id },
      data: {
        ...(input.name ? { name: input.name } : {}),
        ...(input.redirectUris ? { redirectUris: assertRedirectUris(input.redirectUris, ctx.tenant.livemode) } : {}),
        ...(input.scopes ? { scopes: [...new Set(input.scopes)] } : {}),
      },
    });
  },
});

export const deleteApp = defineOperation({
  name: 'deleteApp',
  summary: 'Delete an OAuth app',
  description: 'Deletes the app: its client stops at once, and the tokens of every business connected to it stop working (within 5 seconds in other API processes). Answers the app as it was.',
  access: { permission: 'business:write' },
  args: z.object({ id: appId }),
  errors: [],
  example: { id: EXAMPLE_ID },
  async run(ctx, args) {
    const current = await found(ctx.db.app.findFirst({ where: { id: args.id, ...live } }), 'app', args.id);
    const app = await ctx.db.app.update({ where: { id: current.id }, data: { deletedAt: ctx.now() } });
    ctx.onAccessChanged();
    return app;
  },
});
