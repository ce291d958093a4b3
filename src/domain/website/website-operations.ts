import { z } from 'zod';
import type { Website } from '../../generated/prisma/client.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { presentWebsite } from './website.fields.ts';

/** The website of the caller's environment, made (unpublished, empty) the first time it is asked for. */
export function websiteOf(db: Db, ctx: DomainContext, query: PrismaQuery = {}): Promise<Website> {
  const key = { businessId: ctx.tenant.businessId, livemode: ctx.tenant.livemode };
  return db.website.upsert({ ...query, where: { businessId_livemode: key }, create: { id: newId('website'), ...key }, update: {} }) as Promise<Website>;
}

export const getWebsite = defineOperation({
  name: 'website',
  summary: 'Retrieve the website',
  description:
    "The customer-facing website's configuration: whether it is published, its title, description and contact details, and which vehicles its public fleet shows. Each environment has its own (the sandbox's is a preview); a new one is unpublished and shows no vehicle.",
  access: { permission: 'website:read' },
  args: z.object({}),
  errors: [],
  example: {},
  run: (ctx, _args, { query }) => websiteOf(ctx.db, ctx, query),
});

const text = (max: number, description: string) => z.string().trim().min(1).max(max).nullish().meta({ description: `${description} Null clears it.` });

export const updateWebsite = defineOperation({
  name: 'updateWebsite',
  summary: 'Update the website',
  description:
    'Publishes or unpublishes the website and changes its title, description, contact details and the vehicles its public fleet shows (website.updated). Only the fields sent change. `published_vehicle_ids` replaces the list; each must be a vehicle of this business and environment (422 naming the entry).',
  access: { permission: 'website:write' },
  args: z.object({
    input: z
      .object({
        published: z.boolean().optional().meta({ description: 'Whether the public fleet shows anything.' }),
        title: text(120, 'The site title.'),
        description: text(2000, 'A description for customers.'),
        contactEmail: z.email().max(254).nullish().meta({ description: 'Shown to customers. Null clears it.' }),
        contactPhone: z.string().trim().regex(/^\+?[0-9 ().-]{4,40}$/, 'expected a phone number (digits, spaces, + ( ) . -)').nullish().meta({ description: 'Shown to customers. Null clears it.' }),
        publishedVehicleIds: z.array(id('A vehicle (veh_...).')).max(500).optional().meta({ description: 'The vehicles the public fleet shows; replaces the list.' }),
      })
      .meta({ id: 'WebsiteInput' }),
  }),
  errors: [],
  example: { input: { published: true, title: 'Lone Star Rentals', publishedVehicleIds: ['veh_01jd3m4k5n6p7q8r9s0t1v2w3x'] } },
  async run(ctx, { input }, { query }) {
    const origin = originOf(ctx);
    const saved = await ctx.db.$transaction(async (tx) => {
      const current = await websiteOf(tx, ctx);
      let publishedVehicleIds: string[] | undefined;
      if (input.publishedVehicleIds) {
        publishedVehicleIds = [...new Set(input.publishedVehicleIds)];
        const known = new Set((await tx.vehicle.findMany({ where: { id: { in: publishedVehicleIds } }, select: { id: true } })).map((v) => v.id));
        const missing = input.publishedVehicleIds.findIndex((v) => !known.has(v));
        if (missing >= 0) throw CommonErrors.parameterInvalid(`published_vehicle_ids.${missing}`, `No such vehicle: '${input.publishedVehicleIds[missing]}'.`);
      }
      const updated = await tx.website.update({
        where: { id: current.id },
        data: {
          published: input.published,
          title: input.title,
          description: input.description,
          contactEmail: input.contactEmail,
          contactPhone: input.contactPhone,
          publishedVehicleIds,
        },
      });
      await recordEvent(tx, origin, { type: 'website.updated', object: presentWebsite(updated) });
      return updated;
    });
    return ctx.db.website.findUniqueOrThrow({ ...query, where: { id: saved.id } });
  },
});
