import { builder } from '../builder.ts';
import { CHARGE_FIELDS } from '../domain/charges/charge.fields.ts';
import { chargeMachine } from '../domain/charges/charge-state.ts';
import { listBookingCharges } from '../domain/charges/list-booking-charges.ts';
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

builder.queryFields((t) => ({ bookingCharges: charges.connection(t, Charge) }));
