import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { found } from '../shared/found.ts';
import type { DomainContext } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';

/** The vehicles the public fleet may show: those listed by a published website, while active. */
export async function publicFleet(ctx: DomainContext): Promise<Prisma.VehicleWhereInput> {
  const website = await ctx.db.website.findUnique({ where: { businessId_livemode: { businessId: ctx.tenant.businessId, livemode: ctx.tenant.livemode } }, select: { published: true, publishedVehicleIds: true } });
  const ids = website?.published ? website.publishedVehicleIds : [];
  return { id: { in: ids }, status: 'active' };
}

export const listPublicVehicles = defineOperation({
  name: 'publicVehicles',
  summary: 'List the public fleet',
  description:
    "The vehicles the business's published website shows, newest first, as customers see them: no metadata, status or access method, and only the public lines of the location. Empty while the website is unpublished. Publishable keys may call it.",
  access: { permission: 'website:read', publishable: true },
  args: z.object({}),
  errors: [],
  async run(ctx, _args, { page, query }) {
    const p = pageQuery(page ?? {});
    const fleet = await publicFleet(ctx);
    const rows = await ctx.db.vehicle.findMany({ ...query, where: { AND: [fleet, p.where] }, orderBy: p.orderBy, take: p.take });
    return toPage(rows, p);
  },
});

export const getPublicVehicle = defineOperation({
  name: 'publicVehicle',
  summary: 'Retrieve a public vehicle',
  description:
    "One vehicle of the public fleet, as customers see it. A vehicle the published website does not show (or any, while it is unpublished) answers 404 like an unknown one. Publishable keys may call it.",
  access: { permission: 'website:read', publishable: true },
  args: z.object({ id: id('The vehicle (veh_...).') }),
  errors: [],
  example: { id: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const fleet = await publicFleet(ctx);
    return found(ctx.db.vehicle.findFirst({ ...query, where: { AND: [fleet, { id: args.id }] } }), 'vehicle', args.id);
  },
});
