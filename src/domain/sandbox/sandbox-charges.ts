import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { openDispute, recordChargeFailure, recordChargeSuccess } from '../charges/charge-outcomes.ts';
import type { DomainContext } from '../shared/context.ts';
import { metadata, parseInput } from '../shared/validation.ts';
import { chargeSimulation, simulateOnCharge, type ChargeSimulation } from './sandbox-simulation.ts';

/** POST /v1/test/charges/{id}/succeed: collection of a post-trip charge succeeds. */
export async function simulateChargeSuccess(ctx: DomainContext, id: string): Promise<ChargeSimulation> {
  return chargeSimulation(await simulateOnCharge(ctx, id, 'charges:write', (tx, origin, c) => recordChargeSuccess(tx, origin, c)));
}

/** POST /v1/test/charges/{id}/fail: collection fails; the booking goes to `problem`. */
export async function simulateChargeFailure(ctx: DomainContext, id: string): Promise<ChargeSimulation> {
  return chargeSimulation(await simulateOnCharge(ctx, id, 'charges:write', (tx, origin, c) => recordChargeFailure(tx, origin, c, 'card_declined')));
}

const disputeInput = z.object({ reason: z.string().trim().min(1).max(500).nullish(), metadata: metadata.nullish() });

/** POST /v1/test/charges/{id}/dispute: the customer opens a dispute (201 with the dispute). */
export async function simulateDispute(ctx: DomainContext, id: string, raw: unknown, query: { include?: Prisma.DisputeInclude; select?: Prisma.DisputeSelect } = {}) {
  const input = parseInput(disputeInput, raw ?? {});
  const dispute = await simulateOnCharge(ctx, id, 'disputes:write', (tx, origin, c) => openDispute(tx, origin, c, { reason: input.reason ?? 'general', metadata: input.metadata ?? {} }));
  return ctx.prisma.dispute.findUniqueOrThrow({ ...query, where: { id: dispute.id } } as { where: { id: string } });
}
