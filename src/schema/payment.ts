import { builder } from '../builder.ts';
import { DEPOSIT_FIELDS } from '../domain/deposits/deposit.fields.ts';
import { depositMachine } from '../domain/deposits/deposit-state.ts';
import { captureBookingDeposit } from '../domain/deposits/capture-deposit.ts';
import { getBookingDeposit } from '../domain/deposits/get-booking-deposit.ts';
import { releaseBookingDeposit } from '../domain/deposits/release-deposit.ts';
import { secureBookingDeposit } from '../domain/deposits/secure-deposit.ts';
import { createCheckout, type Checkout } from '../domain/payments/create-checkout.ts';
import { getBookingPayment } from '../domain/payments/get-booking-payment.ts';
import { listBookingTransactions } from '../domain/payments/list-booking-transactions.ts';
import { refundBookingPayment } from '../domain/payments/refund-payment.ts';
import { retryBookingPayment } from '../domain/payments/retry-payment.ts';
import { PAYMENT_FIELDS, TRANSACTION_FIELDS } from '../domain/payments/payment.fields.ts';
import { paymentMachine } from '../domain/payments/payment-state.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';
import { ROW_KEY } from './select-mode.ts';

builder.prismaObject('Payment', {
  description: 'The rental payment of a booking.',
  select: ROW_KEY,
  fields: (t) => ({
    ...(exposePublicFields(t, PAYMENT_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.PaymentState], description: 'States the payment can move to now.', select: { state: true }, resolve: (p) => paymentMachine.nextStates(p) }),
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

const Transaction = builder.prismaObject('Transaction', {
  description: 'A movement of money on a booking.',
  fields: (t) => ({ ...(exposePublicFields(t, TRANSACTION_FIELDS, enums) as {}) }),
});

const payment = operationField(getBookingPayment);
const deposit = operationField(getBookingDeposit);
const transactions = operationField(listBookingTransactions);

builder.queryFields((t) => ({
  bookingPayment: payment.prisma(t, 'Payment'),
  bookingDeposit: deposit.prisma(t, 'Deposit'),
  bookingTransactions: transactions.connection(t, Transaction),
}));

const CheckoutRef = builder.objectRef<Checkout>('Checkout').implement({
  description: "What the customer's browser or app needs to pay a booking; the client secret is shown in this answer only.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The checkout (cs_...).' }),
    livemode: t.exposeBoolean('livemode'),
    bookingId: t.exposeID('bookingId'),
    paymentId: t.exposeID('paymentId'),
    amountCents: t.exposeInt('amountCents', { description: "The booking's total, in the currency's minor units." }),
    currency: t.exposeString('currency'),
    clientSecret: t.exposeString('clientSecret', { description: "Completes the payment at the processor (for example Stripe.js's confirmPayment)." }),
    url: t.exposeString('url', {
      // Non-null since 1.1.0 (1.0.0 declared it nullable): an answer's field narrowed to never null breaks no client.
      description:
        "Where the customer pays, never null: in the sandbox the service's hosted payment page (a test card form with Pay and Decline, which drive the sandbox processor); in live mode the processor's page.",
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the booking stops holding its vehicle unless paid.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    booking: t.prismaField({ type: 'Booking', resolve: (query, c, _args, ctx) => ctx.domain.db.booking.findUniqueOrThrow({ ...query, where: { id: c.bookingId } }) }),
    payment: t.prismaField({ type: 'Payment', resolve: (query, c, _args, ctx) => ctx.domain.db.payment.findUniqueOrThrow({ ...query, where: { id: c.paymentId } }) }),
  }),
});

builder.prismaObjectField('Booking', 'transactions', (t) =>
  t.relation('transactions', { description: 'Every money movement of the booking, oldest first; they reconcile with its payment, deposit and charges.', query: { orderBy: { id: 'asc' } } }),
);

const checkout = operationField(createCheckout);
const refund = operationField(refundBookingPayment);
const retry = operationField(retryBookingPayment);
const depositActions = [secureBookingDeposit, captureBookingDeposit, releaseBookingDeposit].map((operation) => [operation.name, operationField(operation)] as const);

builder.mutationFields((t) => ({
  createCheckout: checkout.plain(t, CheckoutRef),
  refundBookingPayment: refund.prisma(t, 'Payment'),
  retryBookingPayment: retry.prisma(t, 'Payment'),
  ...Object.fromEntries(depositActions.map(([name, field]) => [name, field.prisma(t, 'Deposit')])),
}));
