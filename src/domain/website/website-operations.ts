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

/**
 * An origin a browser may use the publishable keys from: `scheme://host[:port]` and nothing
 * else (no path, query, user or fragment), https, or http for localhost and 127.0.0.1 only
 * (local development, in either mode). Kept as the browser sends it in Origin: lower case,
 * without a default port.
 */
export function allowedOrigin(raw: string): { origin: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'expected an origin such as https://www.example.com' };
  }
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return { problem: 'an origin is https (http only for localhost and 127.0.0.1)' };
  if (url.username || url.password || url.search || url.hash || !/^[a-z]+:\/\/[^/?#]+\/?$/i.test(raw)) {
    return { problem: 'an origin is scheme://host[:port], without a path, query, fragment or user' };
  }
  return { origin: url.origin };
}

const originEntry = z
  .string()
  .max(300)
  .superRefine((raw, ctx) => {
    const checked = allowedOrigin(raw.trim());
    if ('problem' in checked) ctx.addIssue({ code: 'custom', message: `Invalid origin '${raw}': ${checked.problem}.` });
  })
  .meta({ description: 'An origin: scheme://host[:port].' });

const text = (max: number, description: string) => z.string().trim().min(1).max(max).nullish().meta({ description: `${description} Null clears it.` });

export const updateWebsite = defineOperation({
  name: 'updateWebsite',
  summary: 'Update the website',
  description:
    'Publishes or unpublishes the website and changes its title, description, contact details, the vehicles its public fleet shows and the origins allowed to embed the booking components (website.updated). Only the fields sent change. `published_vehicle_ids` replaces the list; each must be a vehicle of this business and environment (422 naming the entry). `allowed_origins` replaces the list of origins whose browsers may use the publishable keys (each https://host[:port], or http for localhost and 127.0.0.1; anything else is a 422 naming the entry).',
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
        allowedOrigins: z
          .array(originEntry)
          .max(50)
          .optional()
          .meta({
            description:
              "Origins (scheme://host[:port]: https, or http for localhost and 127.0.0.1) whose browsers may use this environment's publishable keys: the sites that embed the booking components. Replaces the list. The verified custom domains are allowed without being listed, and in the sandbox http://localhost and http://127.0.0.1 on any port. Needs website:write (owner, admin and manager roles).",
          }),
      })
      .meta({ id: 'WebsiteInput' }),
  }),
  errors: [],
  example: { input: { published: true, title: 'Lone Star Rentals', publishedVehicleIds: ['veh_01jd3m4k5n6p7q8r9s0t1v2w3x'], allowedOrigins: ['https://www.lonestarrentals.com'] } },
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
          allowedOrigins: input.allowedOrigins ? [...new Set(input.allowedOrigins.map((o) => (allowedOrigin(o.trim()) as { origin: string }).origin))] : undefined,
        },
      });
      await recordEvent(tx, origin, { type: 'website.updated', object: presentWebsite(updated) });
      return updated;
    });
    return ctx.db.website.findUniqueOrThrow({ ...query, where: { id: saved.id } });
  },
});
