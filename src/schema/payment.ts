import { builder } from '../builder.ts';
import { DEPOSIT_FIELDS, PAYMENT_FIELDS, TRANSACTION_FIELDS } from '../domain/payments/payment.fields.ts';
import { getBookingDeposit, getBookingPayment } from '../domain/payments/payment.service.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';

builder.prismaObject('Payment', {
  description: 'The rental payment of a booking.',
  fields: (t) => ({ ...(exposePublicFields(t, PAYMENT_FIELDS, enums) as {}), booking: t.relation('booking') }),
});

builder.prismaObject('Deposit', {
  description: 'The security deposit of a booking, held apart from the rental total.',
  fields: (t) => ({ ...(exposePublicFields(t, DEPOSIT_FIELDS, enums) as {}), booking: t.relation('booking') }),
});

builder.prismaObject('Transaction', {
  description: 'A movement of money on a booking.',
  fields: (t) => ({ ...(exposePublicFields(t, TRANSACTION_FIELDS, enums) as {}) }),
});

builder.queryFields((t) => ({
  bookingPayment: t.prismaField({
    type: 'Payment',
    args: { bookingId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getBookingPayment(ctx.domain, String(args.bookingId), query),
  }),
  bookingDeposit: t.prismaField({
    type: 'Deposit',
    args: { bookingId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getBookingDeposit(ctx.domain, String(args.bookingId), query),
  }),
}));
