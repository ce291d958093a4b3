import { createHash, randomBytes } from 'node:crypto';
import type { PaymentProcessor } from '../domain/payments/processor.ts';

/**
 * The sandbox's processor: it accepts every request and keeps nothing. Its ids are derived
 * from the idempotency key, so a retried call answers the same payment or refund, as a real
 * processor's idempotency would. Declines and failures are the sandbox simulations' to
 * cause (/v1/test/...), not this adapter's. Since it carries out every call and keeps
 * nothing, a call whose answer was lost counts as carried out: its look-up answers what the
 * call answers.
 */
export function sandboxProcessor(): PaymentProcessor {
  const idFor = (prefix: string, key: string) => `${prefix}_sandbox_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
  return {
    name: 'sandbox',
    async createPayment(request) {
      const id = idFor('pi', request.idempotencyKey);
      return { id, clientSecret: `${id}_secret_${randomBytes(12).toString('hex')}`, url: null };
    },
    async refund(request) {
      return { id: idFor('re', request.idempotencyKey) };
    },
    async holdDeposit(request) {
      return { id: idFor('pi', request.idempotencyKey) };
    },
    async captureDeposit(request) {
      return { id: idFor('ch', request.idempotencyKey) };
    },
    async releaseDeposit() {},
    async chargeOffSession(request) {
      return { id: idFor('pi', request.idempotencyKey) };
    },
    async lookUp(call) {
      if (call.kind === 'release') return { status: 'succeeded', id: call.holdId };
      return { status: 'succeeded', id: idFor(call.kind === 'refund' ? 're' : call.kind === 'capture' ? 'ch' : 'pi', call.idempotencyKey) };
    },
  };
}
