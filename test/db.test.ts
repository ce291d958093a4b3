// The database layer on both engines: migrations, the booking overlap rule, error
// detection, and the lock that keeps two processes off one embedded data directory.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseLockedError, openDatabase, openPGlite, type Database } from '../src/db/database.ts';
import { isExclusionViolation, isUniqueViolation } from '../src/db/database-errors.ts';
import { applyMigrations, createMigration, type MigrationTarget } from '../src/db/migrate.ts';
import { pendingMigrations } from '../src/db/migration-status.ts';
import { EMBEDDED_SETTINGS, saveTemplateDirectory } from '../src/db/pglite-template.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';

interface Engine {
  name: string;
  /** A fresh, empty database: how to open it, and a target to run migrations on directly. */
  fresh(): Promise<{ databaseUrl?: string; dataDir?: string; target(): Promise<MigrationTarget>; cleanup(): Promise<void> }>;
}

const engines: Engine[] = [
  {
    name: 'PGlite (memory)',
    async fresh() {
      // An in-memory database cannot be reached a second time, so migrating "again" runs on
      // a separate in-memory instance migrated twice.
      const extra: { close(): Promise<void> }[] = [];
      return {
        dataDir: 'memory://',
        async target() {
          const embedded = await openPGlite('memory://');
          extra.push(embedded);
          await applyMigrations({ kind: 'pglite', pglite: embedded.pglite });
          return { kind: 'pglite', pglite: embedded.pglite };
        },
        cleanup: async () => void (await Promise.all(extra.map((e) => e.close()))),
      };
    },
  },
  {
    name: 'PostgreSQL',
    async fresh() {
      const db = await createTestPostgresDatabase();
      return { databaseUrl: db.url, target: async () => ({ kind: 'postgres', url: db.url }), cleanup: db.drop };
    },
  },
];

describe.each(engines)('database on $name', (engine) => {
  let fresh: Awaited<ReturnType<Engine['fresh']>>;
  let db: Database;

  beforeAll(async () => {
    fresh = await engine.fresh();
    db = await openDatabase({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
    await db.prisma.business.create({ data: { id: 'biz_1', name: 'Rentals' } });
    await db.prisma.vehicle.create({
      data: {
        id: 'veh_1',
        businessId: 'biz_1',
        livemode: false,
        name: 'Civic',
        currency: 'usd',
        dailyRateCents: 5000,
        depositCents: 20000,
        includedMiles: 100,
        extraMileFeeCents: 50,
      },
    });
    await db.prisma.customer.create({ data: { id: 'cus_1', businessId: 'biz_1', livemode: false, name: 'Ada' } });
  });

  afterAll(async () => {
    await db?.close();
    await fresh?.cleanup();
  });

  const booking = (id: string, startAt: string, endAt: string, state?: 'canceled' | 'refunded') => ({
    data: {
      id,
      businessId: 'biz_1',
      livemode: false,
      vehicleId: 'veh_1',
      customerId: 'cus_1',
      startAt: new Date(startAt),
      endAt: new Date(endAt),
      days: 2,
      currency: 'usd',
      dailyRateCents: 5000,
      rentalCents: 10000,
      unlimitedMilesFeeCents: 0,
      depositCents: 20000,
      extraMileFeeCents: 50,
      totalCents: 10000,
      ...(state ? { state } : {}),
    },
  });

  it('opens with every migration applied, and migrating again is a no-op', async () => {
    expect(db.kind).toBe(fresh.databaseUrl ? 'postgres' : 'pglite');
    const rows = await db.prisma.$queryRaw<{ migration_name: string; finished_at: Date | null }[]>`
      SELECT migration_name, finished_at FROM _prisma_migrations`;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);

    expect(await applyMigrations(await fresh.target())).toEqual({ applied: [] });
  });

  it('finds nothing to create: the migrations match schema.prisma', async () => {
    // Also proves the engine does not want to drop the hand-written constraints.
    expect(await createMigration('should_be_empty', await fresh.target())).toBeNull();
  });

  it('rejects an overlapping booking and accepts a canceled or back-to-back one', async () => {
    await db.prisma.booking.create(booking('bk_1', '2030-01-01T10:00:00Z', '2030-01-03T10:00:00Z'));

    const overlap = await db.prisma.booking
      .create(booking('bk_2', '2030-01-02T10:00:00Z', '2030-01-04T10:00:00Z'))
      .catch((err: unknown) => err);
    expect(isExclusionViolation(overlap)).toBe(true);
    expect(isUniqueViolation(overlap)).toBe(false);

    // Same inside an interactive transaction, where the domain will create bookings.
    const inTx = await db.prisma
      .$transaction(async (tx) => tx.booking.create(booking('bk_3', '2030-01-02T00:00:00Z', '2030-01-02T12:00:00Z')))
      .catch((err: unknown) => err);
    expect(isExclusionViolation(inTx)).toBe(true);

    await db.prisma.booking.create(booking('bk_4', '2030-01-02T10:00:00Z', '2030-01-04T10:00:00Z', 'canceled'));
    await db.prisma.booking.create(booking('bk_5', '2030-01-03T10:00:00Z', '2030-01-05T10:00:00Z'));
    const ids = await db.prisma.booking.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
    expect(ids.map((b) => b.id)).toEqual(['bk_1', 'bk_4', 'bk_5']);
  });

  it('rejects a booking that ends before it starts', async () => {
    await expect(
      db.prisma.booking.create(booking('bk_6', '2030-02-02T10:00:00Z', '2030-02-01T10:00:00Z')),
    ).rejects.toThrow(/Booking_period_check/);
  });

  it('recognizes unique violations, from model and raw queries', async () => {
    const dup = await db.prisma.business.create({ data: { id: 'biz_1', name: 'again' } }).catch((err: unknown) => err);
    expect(isUniqueViolation(dup)).toBe(true);
    expect(isExclusionViolation(dup)).toBe(false);
    const raw = await db.prisma.$executeRaw`INSERT INTO "Business" (id, name) VALUES ('biz_1', 'raw')`.catch(
      (err: unknown) => err,
    );
    expect(isUniqueViolation(raw)).toBe(true);
  });
});

describe('PostgreSQL migrations from two processes at once', () => {
  it('applies each migration once', async () => {
    const { url, drop } = await createTestPostgresDatabase();
    try {
      const results = await Promise.all([
        applyMigrations({ kind: 'postgres', url }),
        applyMigrations({ kind: 'postgres', url }),
      ]);
      const applied = results.flatMap((r) => r.applied);
      expect(applied.length).toBeGreaterThan(0);
      expect(new Set(applied).size).toBe(applied.length);
    } finally {
      await drop();
    }
  });
});

describe('embedded database directory lock', () => {
  let dir: string;
  const opened: Database[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'rental-db-test-'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a second open while the first is open, and allows it after close', async () => {
    const first = await openDatabase({ dataDir: dir });
    opened.push(first);
    expect(await readFile(path.join(dir, '.lock'), 'utf8')).toBe(`${process.pid}\n`);

    const second = await openDatabase({ dataDir: dir }).catch((err: unknown) => err);
    expect(second).toBeInstanceOf(DatabaseLockedError);
    expect((second as Error).message).toBe(
      `the embedded database in ${dir} is in use by process ${process.pid}; stop the server or set DATABASE_URL`,
    );

    await first.close();
    const again = await openDatabase({ dataDir: dir });
    opened.push(again);
    // The data survived, and reopening found nothing left to migrate.
    const rows = await again.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM _prisma_migrations`;
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it("keeps its own lock when the template it starts from was made by another process's database on disk", async () => {
    // A set of migrations new to the machine: another process's first fresh database on disk
    // keeps the template, its dump holding that process's lock file.
    const templates = await mkdtemp(path.join(os.tmpdir(), 'rental-db-templates-'));
    try {
      const made = `import { openDatabase } from './src/db/database.ts';
        const db = await openDatabase({ dataDir: process.argv[1] }); await db.close();`;
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', made, path.join(templates, 'first')], { env: { ...process.env, PGLITE_TEMPLATE_DIR: templates }, stdio: 'pipe' });
      expect((await readdir(templates)).filter((f) => f.endsWith('.tar.gz'))).toHaveLength(1);

      const before = process.env.PGLITE_TEMPLATE_DIR;
      process.env.PGLITE_TEMPLATE_DIR = templates;
      try {
        const fresh = path.join(templates, 'second');
        const db = await openDatabase({ dataDir: fresh });
        opened.push(db);
        expect(await readFile(path.join(fresh, '.lock'), 'utf8')).toBe(`${process.pid}\n`);
        expect(await openDatabase({ dataDir: fresh }).catch((err: unknown) => err)).toBeInstanceOf(DatabaseLockedError);
      } finally {
        if (before === undefined) delete process.env.PGLITE_TEMPLATE_DIR;
        else process.env.PGLITE_TEMPLATE_DIR = before;
      }
    } finally {
      await Promise.all(opened.splice(0).map((db) => db.close()));
      await rm(templates, { recursive: true, force: true });
    }
  });

  it('takes over the lock of a process that died without closing', async () => {
    // Far above any pid_max, so no such process exists.
    await writeFile(path.join(dir, '.lock'), '999999999\n');
    const db = await openDatabase({ dataDir: dir });
    opened.push(db);
    expect(await readFile(path.join(dir, '.lock'), 'utf8')).toBe(`${process.pid}\n`);
  });
});

describe('embedded database template', () => {
  it('makes a fresh database from the migrated empty one (its dump in memory, a copy of its directory on disk): every migration applied, no rows, the constraints, triggers and settings in place', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pglite-template-'));
    const before = process.env.PGLITE_TEMPLATE_DIR;
    process.env.PGLITE_TEMPLATE_DIR = dir;
    try {
      const first = await openDatabase({ dataDir: 'memory://' });
      await first.prisma.business.create({ data: { id: 'biz_made_after_the_template', name: 'Not in the template' } });
      await first.close();
      const kept = await readdir(dir);
      expect(kept).toEqual([expect.stringMatching(/^pglite-[0-9a-f]{16}\.tar\.gz$/)]);

      const second = await openDatabase({ dataDir: 'memory://' });
      try {
        expect(await pendingMigrations(second.prisma)).toEqual([]);
        expect(await second.prisma.business.count()).toBe(0);
        const objects = await second.prisma.$queryRaw<{ name: string }[]>`
          SELECT conname AS name FROM pg_constraint WHERE contype = 'x'
          UNION ALL SELECT tgname FROM pg_trigger WHERE NOT tgisinternal`;
        expect(objects.map((o) => o.name).sort()).toEqual(['Booking_no_overlap', 'Booking_vehicle_active', 'Event_notify_rental_outbox'].sort());
      } finally {
        await second.close();
      }

      // On disk: the dump unpacked once into a directory, and a new database is a copy of it,
      // with the embedded settings in force.
      const templateDirectory = await saveTemplateDirectory(openPGlite);
      expect(templateDirectory && path.basename(templateDirectory)).toMatch(/^pglite-[0-9a-f]{16}$/);
      const dataDir = path.join(dir, 'data');
      const third = await openDatabase({ dataDir });
      try {
        expect(await pendingMigrations(third.prisma)).toEqual([]);
        expect(await third.prisma.business.count()).toBe(0);
        expect(await third.prisma.$queryRaw`SELECT current_setting('shared_buffers') AS value`).toEqual([{ value: EMBEDDED_SETTINGS.shared_buffers }]);
        await third.prisma.business.create({ data: { id: 'biz_in_the_copy', name: 'Only in the copy' } });
      } finally {
        await third.close();
      }
      expect(await readdir(templateDirectory!)).not.toContain('.lock');
      const reopened = await openPGlite(templateDirectory!);
      try {
        expect((await reopened.pglite.query('SELECT count(*)::int AS n FROM "Business"')).rows).toEqual([{ n: 0 }]);
      } finally {
        await reopened.close();
      }
    } finally {
      if (before === undefined) delete process.env.PGLITE_TEMPLATE_DIR;
      else process.env.PGLITE_TEMPLATE_DIR = before;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
