import { loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startDeliveryWorker, workerOptions } from './webhooks/delivery-worker.ts';
import { tenantDbFactory } from './db/tenant-db.ts';
import { startMaintenance } from './jobs/maintenance.ts';
import { configuredChannels } from './messaging/channels.ts';
import { log } from './log.ts';

/**
 * `npm run worker`: webhook delivery and the platform's periodic work (expired holds, late
 * rentals), for running any number of workers beside the API processes (start those with
 * WEBHOOK_WORKER=off); each sweep's steps are compare-and-sets, so they happen once. Needs PostgreSQL: the embedded database
 * belongs to the one process that opened it, where the worker runs in-process.
 */
async function main() {
  const config = loadConfig();
  if (!config.databaseUrl) {
    console.error('npm run worker needs DATABASE_URL (PostgreSQL); with the embedded database the worker runs inside npm start.');
    process.exit(2);
  }
  const db = await openDatabase({ databaseUrl: config.databaseUrl });
  const worker = await startDeliveryWorker(db, workerOptions(config));
  const maintenance = startMaintenance({
    prisma: db.prisma,
    tenantDb: tenantDbFactory(db.prisma, undefined, { direct: db.direct }),
    now: () => new Date(),
    messaging: configuredChannels(config.messaging),
    holdSweepMs: config.holdSweepMs,
    idempotencySweepMs: config.holdSweepMs > 0 ? 600_000 : 0,
    retention: config.retention,
  });
  log.info('webhook worker delivering from PostgreSQL');
  const stop = async () => {
    maintenance.stop();
    await worker.stop();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  log.fatal({ err }, 'webhook worker stopped');
  process.exit(1);
});
