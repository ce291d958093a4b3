import type { z } from 'zod';
import { assertAccess, assertOwnBooking, type OperationAccess } from '../access/permissions.ts';
import type { DomainContext } from './context.ts';
import type { ErrorEntry } from './errors.ts';
import { markingDb, nextCall, type CallEffect } from './idempotent-calls.ts';
import { replayRow } from './replay.ts';
import type { PageParams } from './pagination.ts';
import { parseInput } from './validation.ts';

/** Prisma `select`/`include` of a GraphQL selection (plugin-prisma's query), spread into reads. */
export type PrismaQuery = { include?: never; select?: never } | Record<string, unknown>;

/** Whether a selection asks for related records (or a narrower row) beyond the row itself. */
export function wantsRelations(query: PrismaQuery): boolean {
  const q = query as { include?: Record<string, unknown>; select?: unknown };
  return q.select !== undefined || (q.include !== undefined && Object.keys(q.include).length > 0);
}

/** What the schema layer hands an operation besides its arguments. */
export interface OperationExtras {
  /** The GraphQL selection as a Prisma query, so nested reads cost one query per level. */
  query?: PrismaQuery;
  /** The page of a list operation (keyset: limit, starting_after, ending_before). */
  page?: PageParams;
  /** The Prisma model of the answer (a field that returns one row), to answer a retry from the row the first run wrote. */
  answers?: string;
}

/**
 * One operation of the API, declared once beside its rule: who may call it, its arguments
 * (zod: types, limits, formats, descriptions), the error codes it may answer, its docs and
 * an example. GraphQL arguments, REST coercion, validation, the OpenAPI entry and the
 * route-generated contract tests are all derived from this.
 */
export interface OperationSpec<Args extends z.ZodObject, Result> {
  /** The GraphQL field (Query.<name> or Mutation.<name>) and OpenAPI operationId. */
  name: string;
  summary: string;
  description: string;
  access: OperationAccess;
  args: Args;
  /** Error codes of its own, beyond those every operation of its shape may answer. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  errors: readonly ErrorEntry<any>[];
  /** Arguments of a typical call (GraphQL names; `input` is the REST body). */
  example?: z.input<Args>;
  run(ctx: DomainContext, args: z.output<Args>, extras: OperationExtras): Promise<Result>;
  /**
   * The answer of a call whose change had committed under the same Idempotency-Key when its
   * process died (a retry took the key over): what the first run would have answered, read from
   * the rows it wrote (`effect`), without running the rule again; undefined when they are not
   * enough to answer, and the operation runs. Without it, an operation that answers one row
   * answers the row the first run created, or the one its arguments name that it wrote.
   */
  replay?(ctx: DomainContext, args: z.output<Args>, extras: OperationExtras, effect: CallEffect): Promise<Result | undefined>;
}

export interface Operation<Args extends z.ZodObject = z.ZodObject, Result = unknown> extends OperationSpec<Args, Result> {
  /** Check access, parse the arguments (a bad one is a 422 naming it), then run. */
  call(ctx: DomainContext, rawArgs: unknown, extras?: OperationExtras): Promise<Result>;
}

export function defineOperation<Args extends z.ZodObject, Result>(spec: OperationSpec<Args, Result>): Operation<Args, Result> {
  return {
    ...spec,
    call(ctx, rawArgs, extras = {}) {
      try {
        assertAccess(ctx.principal, spec.access);
        const args = parseInput(spec.args, rawArgs ?? {});
        assertOwnBooking(ctx.principal, spec.access, args);
        return ctx.idempotent ? callOnce(spec, ctx, args, extras) : spec.run(ctx, args, extras);
      } catch (err) {
        return Promise.reject(err); // one promise, not an async wrapper: this is every request's path
      }
    },
  };
}

/**
 * A replay that answers what the read `read` answers now for the same arguments: the resource
 * as the first run left it (a view that is not one row, such as a booking's return).
 */
export function answersAs<R>(read: { run(ctx: DomainContext, args: never, extras: OperationExtras): Promise<R> }) {
  return (ctx: DomainContext, args: object, extras: OperationExtras): Promise<R> => read.run(ctx, args as never, extras);
}

/**
 * A call under an Idempotency-Key: answered from what an earlier owner of the key committed
 * for this same call, if it did (src/domain/shared/idempotent-calls.ts); else run, its
 * transactions marking what it writes.
 */
async function callOnce<Args extends z.ZodObject, Result>(spec: OperationSpec<Args, Result>, ctx: DomainContext, args: z.output<Args>, extras: OperationExtras): Promise<Result> {
  const request = ctx.idempotent!;
  const call = nextCall(request, spec.name);
  const effect = request.committed[call];
  if (effect) {
    const answer = spec.replay ? await spec.replay(ctx, args, extras, effect) : extras.answers ? ((await replayRow(ctx, extras.answers, args, effect, extras.query)) as Result | undefined) : undefined;
    if (answer !== undefined) {
      request.replayed = true;
      return answer;
    }
  }
  return spec.run({ ...ctx, db: markingDb(ctx.db, request, ctx.requestId, call) }, args, extras);
}
