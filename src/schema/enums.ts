import { builder } from '../builder.ts';
import * as Enums from '../generated/prisma/enums.ts';

/** The Prisma enums the API shows, registered once under their own names. */
const names = [
  'BookingState', 'GateStatus', 'VehicleStatus', 'PaymentState', 'DepositState', 'TransactionType',
  'TransactionStatus', 'ChargeType', 'ChargeState', 'DisputeState', 'MessageChannel', 'MessageDirection', 'MessageDeliveryState', 'FileState', 'FilePurpose', 'PhotoSlot', 'ReturnState', 'InsuranceState', 'AgreementState', 'CheckState',
  'TeamRole', 'InvitationState', 'DomainState',
] as const;

export const enums = Object.fromEntries(
  names.map((name) => [name, builder.enumType(Enums[name] as Record<string, string>, { name })]),
) as Record<(typeof names)[number], ReturnType<typeof builder.enumType>>;

const declared = new Map<string, ReturnType<typeof builder.enumType>>();

/** An enum an operation's input names (zod `.meta({ id })`) that is not a Prisma enum, registered once. */
export function enumType(name: string, values: readonly string[], description?: string) {
  let ref = declared.get(name);
  if (!ref) {
    ref = builder.enumType(name, { values: values as string[], description });
    declared.set(name, ref);
  }
  return ref;
}
