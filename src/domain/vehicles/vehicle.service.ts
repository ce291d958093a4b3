import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { loadSettings } from '../business/business.service.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { resourceMissing, validationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { pageQuery, toPage, type PageParams } from '../shared/pagination.ts';
import { currency, newMetadata, money, parseInput, timestamp } from '../shared/validation.ts';
import { blockingBookingsOverlapping } from '../bookings/booking-overlap.ts';

/** Prisma `select`/`include` from the GraphQL layer (plugin-prisma's query spread). */
type Query = { include?: Prisma.VehicleInclude; select?: Prisma.VehicleSelect };

export async function listVehicles(ctx: DomainContext, params: PageParams, query: Query = {}) {
  authorize(ctx.principal, 'vehicles:read', { publishable: true });
  const page = pageQuery(params);
  const rows = await ctx.prisma.vehicle.findMany({
    ...query,
    where: { ...scope(ctx), status: 'active', ...page.where },
    orderBy: page.orderBy,
    take: page.take,
  });
  return toPage(rows, page);
}

export async function getVehicle(ctx: DomainContext, id: string, query: Query = {}) {
  authorize(ctx.principal, 'vehicles:read', { publishable: true });
  const vehicle = await ctx.prisma.vehicle.findFirst({ ...query, where: { id, ...scope(ctx) } });
  if (!vehicle) throw resourceMissing('vehicle', id);
  return vehicle;
}

const createVehicleInput = z.object({
  name: z.string().trim().min(1).max(200),
  make: z.string().max(100).nullish(),
  model: z.string().max(100).nullish(),
  year: z.number().int().min(1900).max(2100).nullish(),
  currency: currency.nullish(),
  dailyRateCents: money.refine((v) => v > 0, 'must be positive'),
  depositCents: money.default(0),
  includedMiles: z.number().int().min(0).max(100_000).nullish(),
  extraMileFeeCents: money.default(0),
  unlimitedMilesDailyCents: money.nullish(),
  location: z.record(z.string(), z.unknown()).nullish(),
  deliveryOptions: z.array(z.record(z.string(), z.unknown())).max(20).default([]),
  accessMethod: z.enum(['in_person', 'lockbox', 'keyless', 'remote_unlock']).default('in_person'),
  minimumAge: z.number().int().min(16).max(99).default(21),
  photos: z.array(z.object({ slot: z.string().max(40), url: z.string().url().max(2000) })).max(50).default([]),
  features: z.array(z.string().min(1).max(100)).max(50).default([]),
  metadata: newMetadata,
});

export type CreateVehicleInput = z.input<typeof createVehicleInput>;

export async function createVehicle(ctx: DomainContext, raw: unknown, query: Query = {}) {
  authorize(ctx.principal, 'vehicles:write');
  const input = parseInput(createVehicleInput, raw);
  const { settings, currency: businessCurrency } = await loadSettings(ctx);
  return ctx.prisma.vehicle.create({
    ...query,
    data: {
      id: newId('vehicle'),
      ...scope(ctx),
      ...input,
      make: input.make ?? null,
      model: input.model ?? null,
      year: input.year ?? null,
      currency: input.currency ?? businessCurrency,
      includedMiles: input.includedMiles ?? settings.included_mileage_defaults.miles_per_day,
      unlimitedMilesDailyCents: input.unlimitedMilesDailyCents ?? null,
      location: (input.location ?? undefined) as Prisma.InputJsonValue | undefined,
      deliveryOptions: input.deliveryOptions as Prisma.InputJsonValue,
      photos: input.photos as Prisma.InputJsonValue,
    },
  });
}

/** A rental period: start before end, at most a year (both validated here, once). */
export const rentalPeriod = z
  .object({ startAt: timestamp, endAt: timestamp })
  .superRefine((p, ctx) => {
    if (p.endAt <= p.startAt) ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'must be after start_at' });
    else if (p.endAt.getTime() - p.startAt.getTime() > 366 * 86_400_000) ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'a rental lasts at most 366 days' });
  });

export function assertNotInPast(ctx: DomainContext, startAt: Date): void {
  // A few minutes of slack for clock skew between the integrator and us.
  if (startAt.getTime() < ctx.now().getTime() - 5 * 60_000) throw validationError('start_at', 'Invalid start_at: must not be in the past.');
}

/** GET /v1/availability: active vehicles with no blocking booking overlapping the period. */
export async function searchAvailability(ctx: DomainContext, raw: { startAt?: unknown; endAt?: unknown } & PageParams, query: Query = {}) {
  authorize(ctx.principal, 'vehicles:read', { publishable: true });
  const period = parseInput(rentalPeriod, { startAt: raw.startAt, endAt: raw.endAt });
  const page = pageQuery(raw);
  const rows = await ctx.prisma.vehicle.findMany({
    ...query,
    where: {
      ...scope(ctx),
      status: 'active',
      ...page.where,
      bookings: { none: blockingBookingsOverlapping(period, ctx.now()) },
    },
    orderBy: page.orderBy,
    take: page.take,
  });
  return toPage(rows, page);
}
