import { builder } from '../builder.ts';
import { CHARGE_FIELDS } from '../domain/charges/charge.fields.ts';
import { chargeMachine } from '../domain/charges/charge-state.ts';
import { collectCharge } from '../domain/charges/collect-charge.ts';
import { createCharge } from '../domain/charges/create-charge.ts';
import { getCharge } from '../domain/charges/get-charge.ts';
import { listBookingCharges } from '../domain/charges/list-booking-charges.ts';
import { listCustomerCharges } from '../domain/charges/list-customer-charges.ts';
import { waiveCharge } from '../domain/charges/waive-charge.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

export const Charge = builder.prismaObject('Charge', {
  description: 'A post-trip charge on a booking (mileage, damage, fuel, ...).',
  fields: (t) => ({
    ...(exposePublicFields(t, CHARGE_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.ChargeState], description: 'States the charge can move to now.', resolve: (c) => chargeMachine.nextStates(c) }),
    booking: t.relation('booking'),
  }),
});

const charges = operationField(listBookingCharges);
const customerCharges = operationField(listCustomerCharges);
const charge = operationField(getCharge);
const create = operationField(createCharge);
const actions = [collectCharge, waiveCharge].map((operation) => [operation.name, operationField(operation)] as const);

builder.queryFields((t) => ({
  bookingCharges: charges.connection(t, Charge),
  customerCharges: customerCharges.connection(t, Charge),
  charge: charge.prisma(t, 'Charge'),
}));

builder.mutationFields((t) => ({
  createCharge: create.prisma(t, 'Charge'),
  ...Object.fromEntries(actions.map(([name, field]) => [name, field.prisma(t, 'Charge')])),
}));
