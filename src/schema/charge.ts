import { builder } from '../builder.ts';
import { CHARGE_FIELDS } from '../domain/charges/charge.fields.ts';
import { listBookingCharges } from '../domain/charges/charge.service.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { nodeQuery, pageParams, toConnection } from './pagination.ts';

export const Charge = builder.prismaObject('Charge', {
  description: 'A post-trip charge on a booking (mileage, damage, fuel, ...).',
  fields: (t) => ({ ...(exposePublicFields(t, CHARGE_FIELDS, enums) as {}), booking: t.relation('booking') }),
});

builder.queryFields((t) => ({
  bookingCharges: t.connection({
    type: Charge,
    args: { bookingId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx, info) =>
      toConnection(await listBookingCharges(ctx.domain, String(args.bookingId), pageParams(args), nodeQuery(ctx, info)), args),
  }),
}));
