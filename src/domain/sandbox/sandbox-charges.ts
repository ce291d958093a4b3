import { z } from 'zod';
import { recordChargeFailure, recordChargeSuccess } from '../charges/charge-outcomes.ts';
import { ChargeErrors } from '../charges/charge.errors.ts';
import { openDispute } from '../disputes/open-dispute.ts';
import { metadata } from '../shared/validation.ts';
import { chargeSimulation, chargeSimulationOperation, onCharge, replayedChargeSimulation } from './sandbox-simulation.ts';

export const simulateChargeSuccess = chargeSimulationOperation({
  name: 'testSucceedCharge',
  summary: 'Simulate a successful post-trip charge',
  description: 'collection of a post-trip charge succeeds.',
  permission: 'charges:write',
  input: null,
  errors: [ChargeErrors.disputed],
  run: async (ctx, id) => chargeSimulation(await onCharge(ctx, id, recordChargeSuccess)),
  replay: replayedChargeSimulation,
});

export const simulateChargeFailure = chargeSimulationOperation({
  name: 'testFailCharge',
  summary: 'Simulate a failed post-trip charge',
  description: 'collection fails; the booking needs a human (problem).',
  permission: 'charges:write',
  input: null,
  errors: [ChargeErrors.disputed],
  run: async (ctx, id) => chargeSimulation(await onCharge(ctx, id, (tx, origin, c) => recordChargeFailure(tx, origin, c, 'card_declined'))),
  replay: replayedChargeSimulation,
});

/** The customer opens a dispute (201 with the dispute). */
export const simulateDispute = chargeSimulationOperation({
  name: 'testDisputeCharge',
  summary: 'Open a test dispute',
  description: 'the customer disputes the charge (emits dispute.created).',
  permission: 'disputes:write',
  input: z
    .object({ reason: z.string().trim().min(1).max(500).nullish().meta({ description: "The customer's reason (default general)." }), metadata: metadata.nullish() })
    .meta({ id: 'TestDisputeInput' }),
  inputExample: { reason: 'The scratch was there at pickup.' },
  async run(ctx, id, input) {
    return onCharge(ctx, id, (tx, origin, c) => openDispute(tx, origin, c, { reason: input?.reason ?? 'general', metadata: input?.metadata ?? {} }));
  },
});
