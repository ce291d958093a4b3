import { z } from 'zod';
import { ChargeState, ChargeType } from '../../generated/prisma/enums.ts';
import { createdFilters } from '../shared/pagination.ts';

/** The filters of charge lists (the contract's "Conventions"): state, type, creation time. */
export const chargeFilters = {
  state: z.enum(Object.values(ChargeState) as [ChargeState, ...ChargeState[]]).meta({ id: 'ChargeState' }).nullish().meta({ description: 'Only charges in this state.' }),
  type: z.enum(Object.values(ChargeType) as [ChargeType, ...ChargeType[]]).meta({ id: 'ChargeType', description: 'What the charge is for.' }).nullish().meta({ description: 'Only charges of this type.' }),
  ...createdFilters,
};

export function chargeWhere(filter: { state?: ChargeState | null; type?: ChargeType | null }) {
  return { ...(filter.state ? { state: filter.state } : {}), ...(filter.type ? { type: filter.type } : {}) };
}
