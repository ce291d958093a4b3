import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { ownerLookup, type OwnerLookup, type ReferenceKind } from '../src/db/owner-lookup.ts';
import type { TenantScope } from '../src/db/tenant-db.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { log } from '../src/log.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { makeRow, unique } from './support/rows.ts';

/** A pino logger at debug level whose JSON lines land in `lines`, as the service's would on standard output. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>));
      done();
    },
  });
  return { logger: pino({ level: 'debug', formatters: { level: (label) => ({ level: label }) } }, sink), lines };
}

const KINDS = ['file', 'agreement', 'invitation', 'identity_session', 'processor_payment'] as const satisfies ReferenceKind[];

describe.each(ENGINES)('the owner look-up on %s', (engine) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  let sandbox: TenantScope;
  let live: TenantScope;

  beforeAll(async () => {
    const pg = engine === 'postgres' ? await createTestPostgresDatabase() : null;
    drop = pg?.drop;
    db = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: 'memory://' });
    const businessId = (await createBusiness(db.prisma, { name: 'Owner' })).business_id;
    // Its sandbox clock runs an hour ahead: links of its test rows live by that clock, live rows' by real time.
    await db.prisma.business.update({ where: { id: businessId }, data: { sandboxClockOffsetSeconds: 3600 } });
    sandbox = { businessId, livemode: false };
    live = { businessId, livemode: true };
    await createBusiness(db.prisma, { name: 'Another' });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers each kind with its owner and only what checking the credential needs; an unknown reference with null', async () => {
    const owners = ownerLookup(db.prisma, capturedLogger().logger);
    const testFile = await makeRow(db, 'File', sandbox);
    const liveFile = await makeRow(db, 'File', live);
    const testAgreement = await makeRow(db, 'Agreement', sandbox);
    const liveAgreement = await makeRow(db, 'Agreement', live);
    const invitation = await makeRow(db, 'Invitation', sandbox);
    const tokenHash = 'a'.repeat(64);
    await db.prisma.invitation.update({ where: { id: String(invitation.id) }, data: { tokenHash } });
    const verification = await makeRow(db, 'IdentityVerification', live);
    const sessionId = `vs_${unique()}`;
    await db.prisma.identityVerification.update({ where: { id: String(verification.id) }, data: { providerSessionId: sessionId } });
    const payment = await makeRow(db, 'Payment', sandbox);
    const paymentId = `pi_${unique()}`;
    await db.prisma.payment.update({ where: { id: String(payment.id) }, data: { processorPaymentId: paymentId } });

    expect(await owners.resolveOwner('file', String(testFile.id))).toStrictEqual({ ...sandbox, clockOffsetSeconds: 3600 });
    expect(await owners.resolveOwner('file', String(liveFile.id))).toStrictEqual({ ...live, clockOffsetSeconds: 0 });
    expect(await owners.resolveOwner('agreement', String(testAgreement.id))).toStrictEqual({ ...sandbox, clockOffsetSeconds: 3600 });
    expect(await owners.resolveOwner('agreement', String(liveAgreement.id))).toStrictEqual({ ...live, clockOffsetSeconds: 0 });
    // An invitation's clock is that of the environment that invited.
    expect(await owners.resolveOwner('invitation', String(invitation.id))).toStrictEqual({ businessId: sandbox.businessId, tokenHash, clockOffsetSeconds: 3600 });
    await db.prisma.invitation.update({ where: { id: String(invitation.id) }, data: { originLivemode: true } });
    expect(await owners.resolveOwner('invitation', String(invitation.id))).toStrictEqual({ businessId: sandbox.businessId, tokenHash, clockOffsetSeconds: 0 });
    expect(await owners.resolveOwner('identity_session', sessionId)).toStrictEqual(live);
    expect(await owners.resolveOwner('processor_payment', paymentId)).toStrictEqual(sandbox);
    expect(await owners.resolveOwner('booking', String(payment.bookingId))).toStrictEqual({ ...sandbox, clockOffsetSeconds: 3600 });

    // Ids of another kind's rows are unknown to a kind: each reads its own table.
    const others = { file: String(testAgreement.id), agreement: String(testFile.id), invitation: `inv_${unique()}`, identity_session: paymentId, processor_payment: sessionId, booking: String(testAgreement.id) };
    for (const kind of KINDS) expect({ kind, owner: await owners.resolveOwner(kind, others[kind]) }).toEqual({ kind, owner: null });
  });

  it('answers an OAuth app by its client_id and a connection by its grant, in their environment', async () => {
    const owners = ownerLookup(db.prisma, capturedLogger().logger);
    const appId = `app_${unique()}`;
    const clientId = `client_live_${unique()}`;
    await db.prisma.app.create({ data: { id: appId, ...live, name: 'Owner App', clientId, clientSecretHash: 'x', redirectUris: ['https://a.example/cb'], scopes: ['vehicles:read'] } });
    const grantId = `grant_${unique()}`;
    await db.prisma.connectedApp.create({ data: { id: `capp_${unique()}`, ...sandbox, appId, memberId: 'mem_x', scopes: ['vehicles:read'], grantId } });
    expect(await owners.resolveOwner('oauth_client', clientId)).toStrictEqual(live);
    expect(await owners.resolveOwner('oauth_grant', grantId)).toStrictEqual(sandbox);
    expect(await owners.resolveOwner('oauth_client', grantId)).toBeNull();
    expect(await owners.resolveOwner('oauth_grant', clientId)).toBeNull();
  });

  it("records every call at debug level through the service's logger: the kind, the id and whether an owner was found, never the token hash", async () => {
    const invitation = await makeRow(db, 'Invitation', sandbox);
    const tokenHash = 'b'.repeat(64);
    await db.prisma.invitation.update({ where: { id: String(invitation.id) }, data: { tokenHash } });
    const unknownFile = `file_${unique()}`;

    // By default the record goes to src/log.ts's logger, at debug level.
    const debug = vi.spyOn(log, 'debug');
    await ownerLookup(db.prisma).resolveOwner('invitation', String(invitation.id));
    expect(debug.mock.calls).toEqual([[{ kind: 'invitation', id: invitation.id, found: true }, 'owner lookup']]);

    // The lines such a logger writes.
    const { logger, lines } = capturedLogger();
    const owners = ownerLookup(db.prisma, logger);
    await owners.resolveOwner('invitation', String(invitation.id));
    await owners.resolveOwner('file', unknownFile);
    logger.flush();
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(lines.map(({ level, msg, kind, id, found }) => ({ level, msg, kind, id, found }))).toEqual([
      { level: 'debug', msg: 'owner lookup', kind: 'invitation', id: invitation.id, found: true },
      { level: 'debug', msg: 'owner lookup', kind: 'file', id: unknownFile, found: false },
    ]);
    // Nothing of the answer: no hash, no owner.
    for (const line of lines) expect(Object.keys(line).sort()).toEqual(['found', 'hostname', 'id', 'kind', 'level', 'msg', 'pid', 'time']);
    expect(JSON.stringify(lines)).not.toContain(tokenHash);
  });

  it('records a look-up the database failed, and refuses a kind outside the closed set', async () => {
    const { logger, lines } = capturedLogger();
    const failure = new Error('database unreachable');
    const unreachable = { $queryRaw: () => Promise.reject(failure) } as unknown as PrismaClient;
    await expect(ownerLookup(unreachable, logger).resolveOwner('file', 'file_x')).rejects.toBe(failure);
    logger.flush();
    await vi.waitFor(() => expect(lines).toEqual([expect.objectContaining({ level: 'debug', kind: 'file', id: 'file_x', found: false, failed: true })]));

    const owners: OwnerLookup = ownerLookup(db.prisma, logger);
    await expect(owners.resolveOwner('customer' as ReferenceKind, 'cus_x')).rejects.toThrow("no owner look-up for references of kind 'customer'");
    await expect(owners.resolveOwner('toString' as ReferenceKind, 'x')).rejects.toThrow(TypeError);
  });
});
