import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { access, link, open, unlink } from 'node:fs/promises';
import type { TenantDb } from '../db/tenant-db.ts';

/**
 * Audit records a business must keep longer than the platform does (AUDIT_RETENTION_DAYS) leave
 * before their deletion as JSON lines, one record a line (docs/retention.md): `npm run admin --
 * audit export`. Read through the tenant's scope, oldest first, a page at a time, so a year of
 * records never sits in memory.
 */

/** One record as its line shows it: the API's conventions (snake_case, `object`, ISO times). */
export function presentAuditRecord(row: {
  id: string; businessId: string; livemode: boolean; requestId: string; apiKeyId: string | null; memberId: string | null; appId?: string | null;
  method: string; path: string; operation: string | null; status: number; bookingId: string | null; objects: string[]; createdAt: Date;
}) {
  return {
    id: row.id,
    object: 'audit_record',
    business_id: row.businessId,
    livemode: row.livemode,
    created_at: row.createdAt.toISOString(),
    request_id: row.requestId,
    api_key_id: row.apiKeyId,
    member_id: row.memberId,
    app_id: row.appId ?? null,
    method: row.method,
    path: row.path,
    operation: row.operation,
    status: row.status,
    booking_id: row.bookingId,
    objects: row.objects,
  };
}

export interface AuditExportWindow {
  /** Records created at or after this time (none: from the oldest). */
  since?: Date;
  /** Records created before this time (none: up to now). */
  before?: Date;
}

const PAGE = 1_000;

/** Calls `write` with each record of the window, oldest first; returns how many there were. */
export async function forEachAuditRecord(db: TenantDb, window: AuditExportWindow, write: (line: string) => Promise<void> | void): Promise<number> {
  const createdAt = { ...(window.since ? { gte: window.since } : {}), ...(window.before ? { lt: window.before } : {}) };
  let after: string | undefined;
  let count = 0;
  for (;;) {
    // Ids sort by creation: the page after the last id is the next one, whatever is written meanwhile.
    const rows = await db.auditLog.findMany({
      where: { ...(Object.keys(createdAt).length ? { createdAt } : {}), ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: 'asc' },
      take: PAGE,
    });
    for (const row of rows) await write(`${JSON.stringify(presentAuditRecord(row))}\n`);
    count += rows.length;
    if (rows.length < PAGE) return count;
    after = rows[rows.length - 1].id;
  }
}

/** The file already exists: an export never overwrites one. */
export class ExportFileExistsError extends Error {
  override name = 'ExportFileExistsError';
  constructor(readonly file: string) {
    super(`${file} already exists; an export never overwrites a file`);
  }
}

/**
 * Write the window's records to `file` as JSON lines; returns how many. The file appears only
 * once complete (written beside it as `<file>.partial`, flushed to disk, then linked into
 * place), so a file that exists is a whole export; an existing file is never overwritten.
 */
export async function exportAuditRecords(db: TenantDb, window: AuditExportWindow, file: string): Promise<number> {
  if (await exists(file)) throw new ExportFileExistsError(file);
  const partial = `${file}.partial`;
  // 'wx': fails while another export of the same file runs (or one died and left its part).
  const out = createWriteStream(partial, { flags: 'wx' });
  let count: number;
  try {
    await once(out, 'open');
    count = await forEachAuditRecord(db, window, async (line) => {
      if (!out.write(line)) await once(out, 'drain');
    });
    out.end();
    await once(out, 'finish');
    const handle = await open(partial, 'r+');
    await handle.sync().finally(() => handle.close());
    // link() fails when `file` exists, where rename() would replace it.
    await link(partial, file).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EEXIST' ? new ExportFileExistsError(file) : err;
    });
  } catch (err) {
    out.destroy();
    // Its own part only: a part another export holds ('wx' refused it) stays.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await unlink(partial).catch(() => {});
    throw err;
  }
  await unlink(partial);
  return count;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(() => true, () => false);
}
