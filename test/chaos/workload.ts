// The chaos test's workload: stories a business's integration runs, several at once, every
// POST with an Idempotency-Key of its own (one per intended action). Each story draws its
// choices from a stream of the seed named after it.
//
// - A race: a booking of one of a few shared vehicles over a period drawn from a small window,
//   so that creates overlap and race for the vehicle (409 vehicle_unavailable); then left
//   unpaid, canceled unpaid, or paid through a checkout and the sandbox's payment simulation
//   (sometimes declined first), then maybe partly refunded and maybe canceled (a refund through
//   the processor).
// - A burst: three to five creates at once, each with a key of its own, for overlapping periods
//   of one vehicle (the exclusion constraint lets one win; the creates queue for the vehicle).
// - A trip: a vehicle of its own, a booking starting within the pickup window, paid, identity
//   and agreement done, the deposit held through the processor, picked up, post-trip charges
//   created and collected through the processor, returned, the deposit captured (in part, in
//   full or to pay a charge) or released, the return completed.
import type { ChaosClient, Effect, Op } from './client.ts';
import type { Rng } from './rng.ts';

export interface WorkloadOptions {
  client: ChaosClient;
  rng: Rng;
  /** The shared vehicles the races are for. */
  raceVehicles: string[];
  /** Race periods start within this many hours after `raceBase`. */
  raceWindowHours: number;
  raceBase: number;
  /** Stories running at once. */
  lanes: number;
  /** The shares of stories that are trips and bursts (the rest are races). */
  tripShare: number;
  burstShare: number;
  /** No story starts a step after this moment. */
  stopAt: number;
}

export interface WorkloadResult {
  stories: number;
  races: number;
  bursts: number;
  trips: number;
}

const HOUR = 3_600_000;
const customer = (i: number) => ({ name: `Chaos Customer ${i}`, email: `chaos-${i}@example.com` });

export async function runWorkload(options: WorkloadOptions): Promise<WorkloadResult> {
  let next = 0;
  const result: WorkloadResult = { stories: 0, races: 0, bursts: 0, trips: 0 };
  const lane = async () => {
    while (Date.now() < options.stopAt) {
      const i = next++;
      const rng = options.rng.fork(`story-${i}`);
      const story = new Story(options, rng, i);
      result.stories++;
      const kind = rng.weighted({ trip: options.tripShare, burst: options.burstShare, race: 1 - options.tripShare - options.burstShare });
      result[kind === 'trip' ? 'trips' : kind === 'burst' ? 'bursts' : 'races']++;
      await (kind === 'trip' ? story.trip() : kind === 'burst' ? story.burst() : story.race());
    }
  };
  await Promise.all(Array.from({ length: options.lanes }, lane));
  return result;
}

const ok = (op: Op | null): op is Op & { final: { status: number; body: any } } => op !== null && op.settled && op.final !== null && op.final.status < 300;

class Story {
  private readonly name: string;
  constructor(
    private readonly options: WorkloadOptions,
    private readonly rng: Rng,
    private readonly index: number,
  ) {
    this.name = `s${index}`;
  }

  /** A keyed POST (null once the run is stopping: the story ends there). */
  private async post(step: string, path: string, body: unknown = {}, effect?: (answer: any) => Effect | undefined, normal?: number[]): Promise<Op | null> {
    if (Date.now() >= this.options.stopAt) return null;
    const op = await this.options.client.call(this.rng, this.name, step, 'POST', path, body, `${this.name}-${step}`, normal);
    if (ok(op) && effect) op.effect = effect(op.final.body);
    return op;
  }

  private bookingEffect = (answer: any): Effect => ({ object: 'booking', id: answer.id, state: answer.state });

  async race() {
    const { rng, options } = this;
    const vehicleId = rng.pick(options.raceVehicles);
    const start = options.raceBase + rng.int(0, options.raceWindowHours) * HOUR;
    const end = start + rng.int(6, 72) * HOUR;
    const created = await this.post('create_booking', '/v1/bookings', {
      vehicle_id: vehicleId,
      start_at: new Date(start).toISOString(),
      end_at: new Date(end).toISOString(),
      customer: customer(this.index),
      metadata: { chaos_key: `${this.name}-create_booking` },
    }, this.bookingEffect);
    if (!ok(created)) return;
    const id: string = created.final.body.id;
    const total: number = created.final.body.total_cents;
    const path = `/v1/bookings/${id}`;
    const ending = rng.weighted({ unpaid: 1, cancel_unpaid: 1, paid: 4 });
    if (ending === 'unpaid') return;
    if (ending === 'cancel_unpaid') {
      await this.post('cancel', `${path}/cancel`, { reason: 'chaos: changed plans' }, this.bookingEffect);
      return;
    }
    if (rng.chance(0.6)) {
      const checkout = await this.post('checkout', `${path}/checkout`, {}, () => ({ object: 'booking', id, state: 'checkout_started' }));
      if (!ok(checkout)) return;
    }
    if (rng.chance(0.15)) {
      // A declined card first: 402 card_declined is the simulation's answer, with payment.failed recorded.
      await this.post('pay_declined', `/v1/test/bookings/${id}/payment/fail`, {}, undefined, [402]);
    }
    const paid = await this.post('pay', `/v1/test/bookings/${id}/payment/succeed`, {}, this.bookingEffect);
    if (!ok(paid)) return;
    if (rng.chance(0.3)) {
      const amount = rng.int(100, Math.max(100, Math.floor(total / 2)));
      await this.post('refund_partial', `${path}/refund`, { amount_cents: amount, reason: 'chaos: goodwill' }, (p) => ({ object: 'payment', id, state: p.state }));
    }
    if (rng.chance(0.5)) await this.post('cancel', `${path}/cancel`, { reason: 'chaos: customer canceled' }, this.bookingEffect);
  }

  /** Several customers at once, each with a key of their own, for overlapping periods of one vehicle: one wins. */
  async burst() {
    const { rng, options } = this;
    const vehicleId = rng.pick(options.raceVehicles);
    const start = options.raceBase + rng.int(0, options.raceWindowHours) * HOUR;
    const creates = Array.from({ length: rng.int(3, 5) }, (_, n) => {
      const from = start + rng.int(0, 12) * HOUR;
      const step = `burst_${n}`;
      return this.post(`create_booking_${step}`, '/v1/bookings', {
        vehicle_id: vehicleId,
        start_at: new Date(from).toISOString(),
        end_at: new Date(from + rng.int(18, 48) * HOUR).toISOString(),
        customer: customer(this.index * 10 + n),
        metadata: { chaos_key: `${this.name}-create_booking_${step}` },
      }, this.bookingEffect);
    });
    const won = (await Promise.all(creates)).filter(ok);
    // The winners (the periods overlap, so at most one) cancel half the time, freeing the vehicle.
    for (const created of won) if (rng.chance(0.5)) await this.post(`cancel_${created.name}`, `/v1/bookings/${created.final.body.id}/cancel`, {}, this.bookingEffect);
  }

  async trip() {
    const { rng } = this;
    const vehicle = await this.post('create_vehicle', '/v1/vehicles', {
      name: `Chaos Trip Car ${this.index}`,
      daily_rate_cents: rng.int(30, 90) * 100,
      deposit_cents: 25_000,
      included_miles: 200,
      extra_mile_fee_cents: 35,
      metadata: { chaos_key: `${this.name}-create_vehicle` },
    }, (v) => ({ object: 'vehicle', id: v.id, state: null }));
    if (!ok(vehicle)) return;
    // Inside the pickup window (it opens an hour before start_at).
    const start = new Date(Date.now() + 30 * 60_000);
    start.setUTCSeconds(0, 0);
    const created = await this.post('create_booking', '/v1/bookings', {
      vehicle_id: vehicle.final.body.id,
      start_at: start.toISOString(),
      end_at: new Date(start.getTime() + 24 * HOUR).toISOString(),
      customer: customer(this.index),
      metadata: { chaos_key: `${this.name}-create_booking` },
    }, this.bookingEffect);
    if (!ok(created)) return;
    const id: string = created.final.body.id;
    const path = `/v1/bookings/${id}`;
    const test = `/v1/test/bookings/${id}`;
    if (rng.chance(0.5) && !ok(await this.post('checkout', `${path}/checkout`, {}, () => ({ object: 'booking', id, state: 'checkout_started' })))) return;
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign']) {
      if (!ok(await this.post(step.replace('/', '_'), `${test}/${step}`, {}, this.bookingEffect))) return;
    }
    if (!ok(await this.post('deposit_hold', `${path}/deposit`, {}, (d) => ({ object: 'deposit', id, state: d.state })))) return;
    if (!ok(await this.post('pickup', `${test}/pickup`, { mileage_out: 1000 }, this.bookingEffect))) return;

    const charges: { id: string; amount: number; collected: boolean }[] = [];
    for (let n = 0, count = rng.int(0, 2); n < count; n++) {
      const amount = rng.int(5, 200) * 100;
      const charge = await this.post(`create_charge_${n}`, `${path}/charges`, {
        type: rng.pick(['damage', 'fuel', 'cleaning', 'toll'] as const),
        amount_cents: amount,
        description: 'chaos: post-trip charge',
        metadata: { chaos_key: `${this.name}-create_charge_${n}` },
      }, (c) => ({ object: 'charge', id: c.id, state: c.state }));
      if (!ok(charge)) return;
      const entry = { id: charge.final.body.id as string, amount, collected: false };
      charges.push(entry);
      if (rng.chance(0.5)) {
        const collected = await this.post(`collect_${n}`, `/v1/charges/${entry.id}/collect`, {}, (c) => ({ object: 'charge', id: entry.id, state: c.state }));
        if (!ok(collected)) return;
        entry.collected = true;
      }
    }
    const returned = await this.post('return', `${test}/return`, { mileage_in: 1000 + rng.int(50, 600) }, this.bookingEffect);
    if (!ok(returned)) return;

    const pending = charges.filter((c) => !c.collected && c.amount <= 25_000);
    const capture = rng.weighted({ for_charge: pending.length ? 2 : 0, partial: 2, full: 1, release: 1 });
    const depositEffect = (d: any): Effect => ({ object: 'deposit', id, state: d.state });
    if (capture === 'release') {
      if (!ok(await this.post('deposit_release', `${path}/deposit/release`, {}, depositEffect))) return;
    } else {
      const body = capture === 'for_charge' ? { charge_id: rng.pick(pending).id } : capture === 'partial' ? { amount_cents: rng.int(10, 240) * 100, reason: 'chaos: damage' } : { reason: 'chaos: kept' };
      if (!ok(await this.post('deposit_capture', `${path}/deposit/capture`, body, depositEffect))) return;
    }
    await this.post('complete_return', `${path}/return/complete`, {}, (b) => ({ object: 'booking', id, state: b.state }));
  }
}
