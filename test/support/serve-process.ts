// Child process for multi-process tests: the real server from environment variables
// (DATABASE_URL, REDIS_URL, WEBHOOK_*, SANDBOX_RETRY_SCALE ...). Prints "READY <port>".
//
// CRASH_BEFORE_ANSWER_STORED=1 arms a crash: a request sent with `X-Test-Crash: before-answer-stored`
// kills this process (SIGKILL) once its operation has committed and its answer is made, just
// before the idempotency step stores that answer under the request's Idempotency-Key: the
// window in which a real process may die. The client sees its connection drop.
//
// STRIPE_FOR_TEST_KEYS=1 serves test keys through the Stripe adapter too (STRIPE_* settings),
// so a test can drive a trip with the sandbox's simulations and move its money through Stripe.
import type { AddressInfo } from 'node:net';
import type { EdgeStep } from '../../src/http/edge/runner.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { buildApp } from '../../src/server.ts';

const config = loadConfig({ ...process.env, HOLD_SWEEP_MS: process.env.HOLD_SWEEP_MS ?? '0' });
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
let processors;
if (process.env.STRIPE_FOR_TEST_KEYS === '1') {
  const { stripeProcessor } = await import('../../src/processors/stripe-processor.ts');
  const { secretKey, ...settings } = config.stripe;
  const stripe = stripeProcessor({ secretKey: secretKey ?? '', ...settings });
  processors = { test: stripe, live: stripe };
}
const crash: EdgeStep = {
  name: 'test-crash-before-answer-stored',
  run() {},
  answered(ctx) {
    if (ctx.request.header('x-test-crash') === 'before-answer-stored') process.kill(process.pid, 'SIGKILL');
  },
};
// Just before the idempotency step, whose `answered` stores the answer (the steps' hooks run in order).
const beforeIdempotency = (steps: EdgeStep[]) => steps.flatMap((step) => (step.name === 'idempotency' ? [crash, step] : [step]));
const app = await buildApp({ db, config, processors, adjustEdge: process.env.CRASH_BEFORE_ANSWER_STORED === '1' ? beforeIdempotency : undefined });
const server = await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);

const shutdown = async () => {
  setTimeout(() => process.exit(1), 5_000).unref();
  await app.close().catch(() => {});
  await db.close().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
