import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { blockingBookingsOverlapping } from '../bookings/booking-overlap.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { resourceMissing, validationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { newMetadata, parseInput } from '../shared/validation.ts';
import { assertNotInPast, rentalPeriod } from '../vehicles/vehicle.service.ts';
import { priceRental, UnlimitedMilesNotOffered, type PricedVehicle, type Price } from './pricing.ts';

type Query = { include?: Prisma.QuoteInclude; select?: Prisma.QuoteSelect };

const createQuoteInput = z
  .object({
    vehicleId: z.string().min(1).max(100),
    unlimitedMiles: z.boolean().default(false),
    metadata: newMetadata,
  })
  .and(rentalPeriod);

/** Price a vehicle for a period, mapping "no unlimited-miles price" to the contract's 422. */
export function priceOrReject(vehicle: PricedVehicle, period: { startAt: Date; endAt: Date }, unlimitedMiles: boolean): Price {
  try {
    return priceRental(vehicle, period, unlimitedMiles);
  } catch (err) {
    if (err instanceof UnlimitedMilesNotOffered) throw validationError('unlimited_miles', 'Invalid unlimited_miles: this vehicle does not offer unlimited miles.');
    throw err;
  }
}

export async function createQuote(ctx: DomainContext, raw: unknown, query: Query = {}) {
  authorize(ctx.principal, 'quotes:write', { publishable: true });
  const input = parseInput(createQuoteInput, raw);
  assertNotInPast(ctx, input.startAt);
  const vehicle = await ctx.prisma.vehicle.findFirst({ where: { id: input.vehicleId, ...scope(ctx), status: 'active' } });
  if (!vehicle) throw resourceMissing('vehicle', input.vehicleId, 'vehicle_id');
  const price = priceOrReject(vehicle, input, input.unlimitedMiles);
  const now = ctx.now();
  const conflicting = await ctx.prisma.booking.count({ where: { vehicleId: vehicle.id, ...blockingBookingsOverlapping(input, now) } });
  return ctx.prisma.quote.create({
    ...query,
    data: {
      id: newId('quote'),
      ...scope(ctx),
      vehicleId: vehicle.id,
      startAt: input.startAt,
      endAt: input.endAt,
      unlimitedMiles: input.unlimitedMiles,
      ...price,
      available: conflicting === 0,
      expiresAt: new Date(now.getTime() + ctx.config.quoteTtlMinutes * 60_000),
      metadata: input.metadata,
    },
  });
}

export async function getQuote(ctx: DomainContext, id: string, query: Query = {}) {
  authorize(ctx.principal, 'quotes:read', { publishable: true });
  const quote = await ctx.prisma.quote.findFirst({ ...query, where: { id, ...scope(ctx) } });
  if (!quote) throw resourceMissing('quote', id);
  return quote;
}
