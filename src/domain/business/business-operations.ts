import { z } from 'zod';
import { Prisma, type Business } from '../../generated/prisma/client.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { defineOperation } from '../shared/operation.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { addressInput, isTimeZone, mergeAddress, presentBusiness } from './business.fields.ts';

/** The caller's own business (the key decides which; there is no other to read). */
export async function readBusiness(ctx: DomainContext): Promise<Business> {
  return ctx.db.business.findUniqueOrThrow({ where: { id: ctx.tenant.businessId } });
}

/**
 * The business row, locked until the transaction ends: a no-op update takes the row's lock
 * and answers its latest committed version, so two concurrent updates that merge (settings,
 * address lines) never lose one another's changes.
 */
export function lockBusiness(tx: Db, businessId: string): Promise<Business> {
  return tx.business.update({ where: { id: businessId }, data: { sandboxClockOffsetSeconds: { increment: 0 } } });
}

export const getBusiness = defineOperation({
  name: 'business',
  summary: 'Retrieve the business',
  description:
    "The business the key belongs to: its name, support contacts, address, time zone and currency. `livemode` is the key's environment; the business itself is the same in both.",
  access: { permission: 'business:read' },
  args: z.object({}),
  errors: [],
  example: {},
  run: (ctx) => readBusiness(ctx),
});

export const updateBusiness = defineOperation({
  name: 'updateBusiness',
  summary: 'Update the business',
  description:
    'Changes the name, support email and phone, address or time zone (business.updated). Only the fields sent change; null clears an optional one; address lines merge. The currency is set when the business is created and cannot change through the API: every vehicle, quote, booking and charge is priced in it.',
  access: { permission: 'business:write' },
  args: z.object({
    input: z
      .object({
        name: z.string().trim().min(1).max(200).optional().meta({ description: 'The name customers see.' }),
        supportEmail: z.email().max(254).nullish().meta({ description: 'Where customers write for help.' }),
        supportPhone: z.string().trim().regex(/^\+?[0-9 ().-]{4,40}$/, 'expected a phone number (digits, spaces, + ( ) . -)').nullish().meta({ description: 'Where customers call for help.' }),
        address: addressInput.nullish(),
        timezone: z
          .string()
          .min(1)
          .max(64)
          .refine(isTimeZone, 'expected an IANA time zone such as Europe/Berlin or America/New_York')
          .nullish()
          .meta({ description: 'IANA time zone of the business (America/New_York); null sets UTC.' }),
      })
      .meta({ id: 'BusinessInput' }),
  }),
  errors: [],
  example: { input: { name: 'Demo Rentals', supportEmail: 'help@demo-rentals.example', timezone: 'America/Chicago', address: { city: 'Austin', country: 'US' } } },
  async run(ctx, { input }) {
    const origin = originOf(ctx);
    return ctx.db.$transaction(async (tx) => {
      const current = await lockBusiness(tx, ctx.tenant.businessId);
      const address = mergeAddress(current.address, input.address);
      const updated = await tx.business.update({
        where: { id: current.id },
        data: {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.supportEmail !== undefined ? { supportEmail: input.supportEmail } : {}),
          ...(input.supportPhone !== undefined ? { supportPhone: input.supportPhone } : {}),
          ...(input.timezone !== undefined ? { timezone: input.timezone ?? 'UTC' } : {}),
          ...(input.address !== undefined ? { address: address ? (address as Prisma.InputJsonObject) : Prisma.DbNull } : {}),
        },
      });
      await recordEvent(tx, origin, { type: 'business.updated', object: presentBusiness(updated, ctx.tenant.livemode) });
      return updated;
    });
  },
});
