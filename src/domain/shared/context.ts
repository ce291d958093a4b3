import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Principal } from '../access/permissions.ts';

/** A Prisma client or the transaction client handed to `$transaction` callbacks. */
export type Db = PrismaClient | Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

export interface DomainConfig {
  /** How long a pending_payment booking holds its vehicle (CONTRACT.md "Booking"). */
  holdMinutes: number;
  quoteTtlMinutes: number;
}

/** Everything a use case needs: the database, who is calling, and the clock. */
export interface DomainContext {
  prisma: PrismaClient;
  principal: Principal;
  requestId: string;
  idempotencyKey: string | null;
  config: DomainConfig;
  now(): Date;
}

/** Tenant scope of every query: one business, one environment. */
export function scope(ctx: DomainContext) {
  return { businessId: ctx.principal.businessId, livemode: ctx.principal.livemode };
}
