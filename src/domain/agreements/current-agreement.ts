import type { Agreement } from '../../generated/prisma/client.ts';
import type { Db } from '../shared/context.ts';
import type { PrismaQuery } from '../shared/operation.ts';

/**
 * The booking's current agreement: the newest. A booking has at most one agreement that is not
 * voided, always newer than its voided ones (one is made again only after the last was voided),
 * so this is the live one when there is one, else the last voided; null before any.
 */
export function currentAgreement(db: Db, bookingId: string, query: PrismaQuery = {}): Promise<Agreement | null> {
  return db.agreement.findFirst({ ...(query as object), where: { bookingId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}
