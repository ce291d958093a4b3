import { validationError } from './common.errors.ts';
import { timestamp } from './validation.ts';

/**
 * Keyset page request (the contract's "Lists"): newest first, cursors are item ids (ids sort
 * by creation time). GraphQL's Relay arguments map onto it: `first`/`after` read forwards,
 * `last`/`before` read from the end (REST's `ending_before` too).
 */
export interface PageParams {
  limit?: number | null;
  /** Only items after this one in the list (older). */
  startingAfter?: string | null;
  /** Only items before this one in the list (newer). */
  endingBefore?: string | null;
  /** Take the page at the end of that window (Relay `last`): the oldest items, or those just before `endingBefore`. */
  fromEnd?: boolean;
}

export interface Page<T> {
  data: T[];
  /** More items in the direction read (older when reading forwards, newer from the end). */
  hasMore: boolean;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

/** Prisma arguments for one page. */
export function pageQuery(params: PageParams) {
  const limit = params.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw validationError('limit', `Invalid limit: must be an integer between 1 and ${MAX_LIMIT}.`);
  }
  const fromEnd = Boolean(params.fromEnd);
  const id = { ...(params.startingAfter ? { lt: params.startingAfter } : {}), ...(params.endingBefore ? { gt: params.endingBefore } : {}) };
  return {
    limit,
    fromEnd,
    where: Object.keys(id).length ? { id } : {},
    // Reading from the end goes oldest first, then the page is flipped back to newest first.
    orderBy: { id: fromEnd ? ('asc' as const) : ('desc' as const) },
    take: limit + 1,
  };
}

/** Turn the rows of `pageQuery` (one extra row fetched) into a page, newest first. */
export function toPage<T>(rows: T[], query: { limit: number; fromEnd: boolean }): Page<T> {
  const hasMore = rows.length > query.limit;
  const data = rows.slice(0, query.limit);
  return { data: query.fromEnd ? data.reverse() : data, hasMore };
}

/** The creation-time filters of every list (`created[gte]`, `created[lt]` over REST). */
export const createdFilters = {
  createdGte: timestamp('Only items created at or after this time.', '2026-11-01T00:00:00Z').nullish(),
  createdLt: timestamp('Only items created before this time.', '2026-12-01T00:00:00Z').nullish(),
};

/** The `where` of createdFilters (empty when neither is given). */
export function createdWhere(filter: { createdGte?: Date | null; createdLt?: Date | null }) {
  const createdAt = { ...(filter.createdGte ? { gte: filter.createdGte } : {}), ...(filter.createdLt ? { lt: filter.createdLt } : {}) };
  return Object.keys(createdAt).length ? { createdAt } : {};
}
