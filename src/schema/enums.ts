import { builder } from '../builder.ts';
import * as Enums from '../generated/prisma/enums.ts';

/** The Prisma enums the API shows, registered once under their own names. */
const names = [
  'BookingState', 'GateStatus', 'VehicleStatus', 'PaymentState', 'DepositState', 'TransactionType',
  'TransactionStatus', 'ChargeType', 'ChargeState', 'MessageChannel', 'MessageDirection',
] as const;

export const enums = Object.fromEntries(
  names.map((name) => [name, builder.enumType(Enums[name] as Record<string, string>, { name })]),
) as Record<(typeof names)[number], ReturnType<typeof builder.enumType>>;
