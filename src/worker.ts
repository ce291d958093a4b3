import { loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startDeliveryWorker, workerOptions } from './webhooks/delivery-worker.ts';
import { tenantDbFactory } from './db/tenant-db.ts';
import { startMaintenance } from './jobs/maintenance.ts';
import { configuredChannels } from './messaging/channels.ts';
import { log } from './log.ts';
import { healthChecks } from './http/health-checks.ts';
import { startProbeServer } from './http/probe-server.ts';
import { createMetrics } from './metrics.ts';
import { webhookQueueDepth } from './webhooks/queue-depth.ts';

/**
 * `npm run worker`: webhook delivery and the platform's periodic work (expired holds, late
 * rentals), for running any number of workers beside the API processes (start those with
 * WEBHOOK_WORKER=off); each sweep's steps are compare-and-sets, so they happen once. Needs PostgreSQL: the embedded database
 * belongs to the one process that opened it, where the worker runs in-process. With
 * WORKER_METRICS_PORT it serves its own /metrics and /health/* there (src/http/probe-server.ts).
 */
async function main() {
  const config = loadConfig();
  if (!config.databaseUrl) {
    console.error('npm run worker needs DATABASE_URL (PostgreSQL); with the embedded database the worker runs inside npm start.');
    process.exit(2);
  }
  const db = await openDatabase({ databaseUrl: config.databaseUrl });
  const metrics = createMetrics({ queueDepth: () => webhookQueueDepth(db.prisma) });
  const worker = await startDeliveryWorker(db, { ...workerOptions(config), onAttempt: metrics.delivery });
  // The worker has no Redis client of its own: its readiness is the database's.
  const probes =
    config.workerMetricsPort === undefined
      ? null
      : await startProbeServer({ port: config.workerMetricsPort, host: config.host, health: healthChecks(db.prisma, db.kind, undefined), metrics, metricsToken: config.metricsToken });
  const maintenance = startMaintenance({
    prisma: db.prisma,
    tenantDb: tenantDbFactory(db.prisma, undefined, { direct: db.direct }),
    now: () => new Date(),
    messaging: configuredChannels(config.messaging),
    holdSweepMs: config.holdSweepMs,
    idempotencySweepMs: config.holdSweepMs > 0 ? 600_000 : 0,
  });
  if (probes) log.info({ url: probes.url }, 'worker health and metrics served');
  log.info('webhook worker delivering from PostgreSQL');
  const stop = async () => {
    await probes?.close();
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
