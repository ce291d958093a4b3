import { DATAMODEL } from '../../db/direct-sql.ts';
import type { DomainContext } from './context.ts';
import type { CallEffect } from './idempotent-calls.ts';
import type { PrismaQuery } from './operation.ts';

type Reader = { findFirst(args: object): Promise<unknown> };

const fieldsOf = (model: string) => new Set(DATAMODEL[model]?.fields.map((f) => f.name) ?? []);

/**
 * The answer of an operation that answers one row of `model`, for a retry of a call that had
 * committed (`effect`): the row the call created, or else the row it wrote that its arguments
 * name (its `id`, or the parent an argument names: a booking's payment for `bookingId`), read
 * now with the answer's selection. undefined when no such row is found: the operation runs.
 */
export async function replayRow(ctx: DomainContext, model: string, args: object, effect: CallEffect, query: PrismaQuery = {}): Promise<unknown> {
  const reader = (ctx.db as unknown as Record<string, Reader | undefined>)[model[0].toLowerCase() + model.slice(1)];
  if (!reader || !DATAMODEL[model]) return undefined;
  const created = effect.created[model] ?? [];
  const written = [...created, ...(effect.changed[model] ?? [])];
  if (written.length === 0) return undefined;
  const read = async (where: Record<string, unknown>) => (await reader.findFirst({ ...query, where })) ?? undefined;
  if (created.length === 1) return read({ id: created[0] });
  const ids = Object.entries(args).filter((e): e is [string, string] => typeof e[1] === 'string');
  const named = ids.find(([name, value]) => (name === 'id' || name === `${model[0].toLowerCase()}${model.slice(1)}Id`) && written.includes(value));
  if (named) return read({ id: named[1] });
  if (model === 'Business' && written.includes(ctx.tenant.businessId)) return read({ id: ctx.tenant.businessId });
  // A row of the argument's parent: the booking's payment, deposit or insurance.
  const fields = fieldsOf(model);
  for (const [name, value] of ids) {
    if (name !== 'id' && fields.has(name)) {
      const row = await read({ id: { in: written }, [name]: value });
      if (row) return row;
    }
  }
  return undefined;
}
