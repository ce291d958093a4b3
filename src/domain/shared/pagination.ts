import { validationError } from './errors.ts';

/** Keyset page request (CONTRACT.md "Lists"): newest first, cursor = id of an item. */
export interface PageParams {
  limit?: number | null;
  startingAfter?: string | null;
  endingBefore?: string | null;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

/** Prisma arguments for one page over ids that sort by creation time. */
export function pageQuery(params: PageParams) {
  const limit = params.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw validationError('limit', `Invalid limit: must be an integer between 1 and ${MAX_LIMIT}.`);
  }
  if (params.startingAfter && params.endingBefore) {
    throw validationError('ending_before', 'Pass at most one of starting_after and ending_before.');
  }
  // Walking backwards reads ascending from the cursor, then flips the page.
  const backwards = Boolean(params.endingBefore);
  const cursorWhere = params.startingAfter
    ? { id: { lt: params.startingAfter } }
    : params.endingBefore
      ? { id: { gt: params.endingBefore } }
      : {};
  return {
    limit,
    backwards,
    where: cursorWhere,
    orderBy: { id: backwards ? ('asc' as const) : ('desc' as const) },
    take: limit + 1,
  };
}

/** Turn the rows of `pageQuery` (one extra row fetched) into a page, newest first. */
export function toPage<T>(rows: T[], query: { limit: number; backwards: boolean }): Page<T> {
  const hasMore = rows.length > query.limit;
  const data = rows.slice(0, query.limit);
  return { data: query.backwards ? data.reverse() : data, hasMore };
}
