import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type { PrismaClient } from './generated/prisma/client.ts';
import type PrismaTypes from './generated/pothos-prisma-types.ts';
import { getDatamodel } from './generated/pothos-prisma-types.ts';
import type { DomainContext } from './domain/shared/context.ts';
import type { EventPubSub } from './events/event-relay.ts';

/** What every resolver receives: the domain context of the request (auth, tenant, clock). */
export interface GraphQLContext {
  domain: DomainContext;
  /** Live events of committed changes, for subscriptions. */
  pubsub: EventPubSub;
}

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: string; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    // The request's tenant-scoped client: relations Pothos loads by itself stay in the tenant too.
    client: (ctx) => ctx.domain.db as unknown as PrismaClient,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    cursorType: 'String',
    clientMutationId: 'omit',
  },
});
