import { builder } from '../builder.ts';
import { CONNECTED_APP_FIELDS, OAUTH_APP_FIELDS } from '../domain/apps/app.fields.ts';
import { createApp, deleteApp, getApp, listApps, updateApp } from '../domain/apps/apps.ts';
import { disconnectApp, listConnectedApps } from '../domain/apps/connected-apps.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

export const App = builder.prismaObject('App', {
  description: 'An OAuth app: a platform that connects to rental businesses, each granting it chosen permissions.',
  fields: (t) => ({
    ...(exposePublicFields(t, OAUTH_APP_FIELDS, enums) as {}),
    clientSecret: t.string({
      nullable: true,
      description: 'The OAuth client_secret: in the answer that registers the app, and never again.',
      resolve: (a) => (a as { clientSecret?: string }).clientSecret ?? null,
    }),
  }),
});

export const ConnectedApp = builder.prismaObject('ConnectedApp', {
  description: "An app this business connected: the permissions one of its owners or admins granted it.",
  fields: (t) => ({
    ...(exposePublicFields(t, CONNECTED_APP_FIELDS, enums) as {}),
    appName: t.string({ description: "The app's name.", select: { app: { select: { name: true } } }, resolve: (c) => (c as unknown as { app: { name: string } }).app.name }),
  }),
});

const apps = operationField(listApps);
const app = operationField(getApp);
const create = operationField(createApp);
const update = operationField(updateApp);
const remove = operationField(deleteApp);
const connected = operationField(listConnectedApps);
const disconnect = operationField(disconnectApp);

builder.queryFields((t) => ({
  apps: apps.connection(t, App),
  app: app.prisma(t, 'App'),
  connectedApps: connected.connection(t, ConnectedApp),
}));

builder.mutationFields((t) => ({
  createApp: create.prisma(t, 'App'),
  updateApp: update.prisma(t, 'App'),
  deleteApp: remove.prisma(t, 'App'),
  disconnectApp: disconnect.prisma(t, 'ConnectedApp'),
}));
