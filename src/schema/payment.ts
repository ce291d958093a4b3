import { builder } from '../builder.ts';
import { DEPOSIT_FIELDS } from '../domain/deposits/deposit.fields.ts';
import { depositMachine } from '../domain/deposits/deposit-state.ts';
import { getBookingDeposit } from '../domain/deposits/get-booking-deposit.ts';
import { getBookingPayment } from '../domain/payments/get-booking-payment.ts';
import { PAYMENT_FIELDS, TRANSACTION_FIELDS } from '../domain/payments/payment.fields.ts';
import { paymentMachine } from '../domain/payments/payment-state.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

builder.prismaObject('Payment', {
  description: 'The rental payment of a booking.',
  fields: (t) => ({
    ...(exposePublicFields(t, PAYMENT_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.PaymentState], description: 'States the payment can move to now.', resolve: (p) => paymentMachine.nextStates(p) }),
    booking: t.relation('booking'),
  }),
});

builder.prismaObject('Deposit', {
  description: 'The security deposit of a booking, held apart from the rental total.',
  fields: (t) => ({
    ...(exposePublicFields(t, DEPOSIT_FIELDS, enums) as {}),
    nextStates: t.field({
      type: [enums.DepositState],
      description: "States the deposit can move to now (capture and release wait for the rental's end).",
      select: { state: true, booking: { select: { state: true } } },
      resolve: (d) => depositMachine.nextStates({ state: d.state, bookingState: d.booking.state }),
    }),
    booking: t.relation('booking'),
  }),
});

builder.prismaObject('Transaction', {
  description: 'A movement of money on a booking.',
  fields: (t) => ({ ...(exposePublicFields(t, TRANSACTION_FIELDS, enums) as {}) }),
});

const payment = operationField(getBookingPayment);
const deposit = operationField(getBookingDeposit);

builder.queryFields((t) => ({
  bookingPayment: payment.prisma(t, 'Payment'),
  bookingDeposit: deposit.prisma(t, 'Deposit'),
}));
