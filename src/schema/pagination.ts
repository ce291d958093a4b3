import type { GraphQLResolveInfo } from 'graphql';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { validationError } from '../domain/shared/common.errors.ts';
import type { Page, PageParams } from '../domain/shared/pagination.ts';
import type { GraphQLContext } from '../builder.ts';

interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/**
 * Relay arguments → the domain's keyset page (cursor = id, newest first): `first` reads from
 * the start of the window, `last` from its end (the oldest items, or those just before
 * `before`), as the Relay specification says.
 */
export function pageParams(args: ConnectionArgs): PageParams {
  if (args.first != null && args.last != null) throw validationError('last', 'Pass first or last, not both.');
  return { limit: args.first ?? args.last ?? undefined, startingAfter: args.after ?? undefined, endingBefore: args.before ?? undefined, fromEnd: args.last != null };
}

/** The Prisma selection for the nodes of a connection, so nested reads cost one query per level. */
export function nodeQuery(context: GraphQLContext, info: GraphQLResolveInfo) {
  return queryFromInfo({ context, info, path: ['edges', 'node'] }) as { include?: never; select?: never };
}

/** A domain page as a Relay connection whose cursors are the items' ids. */
export function toConnection<T extends { id: string }>(page: Page<T>, args: ConnectionArgs) {
  const edges = page.data.map((node) => ({ cursor: node.id, node }));
  const fromEnd = args.last != null;
  return {
    edges,
    pageInfo: {
      hasNextPage: fromEnd ? false : page.hasMore,
      hasPreviousPage: fromEnd ? page.hasMore : false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
