import type { PrismaClient } from '../generated/prisma/client.ts';
import { createApiKey, revokeApiKey } from '../domain/access/api-keys.ts';
import { createBusiness } from '../domain/business/business.service.ts';

export class AdminUsageError extends Error {}

export const ADMIN_USAGE = `usage:
  business create --name "Demo Rentals" [--currency usd] [--json]
  business list [--json]
  key list --business biz_... [--json]
  key create --business biz_... --mode test|live --kind secret|publishable [--permissions bookings:read,vehicles:read] [--json]
  key revoke --business biz_... --key key_...`;

type Options = { name?: string; business?: string; key?: string; mode?: string; kind?: string; permissions?: string; currency?: string };

function need(value: string | undefined, flag: string): string {
  if (!value) throw new AdminUsageError(`missing --${flag}\n${ADMIN_USAGE}`);
  return value;
}

/** The admin commands, apart from argument parsing so that tests can call them. */
export async function runAdminCommand(prisma: PrismaClient, positionals: string[], options: Options): Promise<unknown> {
  const [noun, verb] = positionals;
  const command = `${noun ?? ''} ${verb ?? ''}`.trim();
  switch (command) {
    case 'business create':
      return createBusiness(prisma, { name: need(options.name, 'name'), currency: options.currency });
    case 'business list':
      return (await prisma.business.findMany({ orderBy: { id: 'asc' } })).map((b) => ({ id: b.id, name: b.name, created_at: b.createdAt.toISOString() }));
    case 'key list': {
      const businessId = need(options.business, 'business');
      const keys = await prisma.apiKey.findMany({ where: { businessId }, orderBy: { id: 'asc' } });
      return keys.map((k) => ({
        id: k.id, key: k.redacted, mode: k.livemode ? 'live' : 'test', kind: k.kind, name: k.name,
        permissions: k.permissions.join(',') || 'all', revoked: k.revokedAt !== null, created_at: k.createdAt.toISOString(),
      }));
    }
    case 'key create': {
      const businessId = need(options.business, 'business');
      const mode = need(options.mode, 'mode');
      const kind = need(options.kind, 'kind');
      if (mode !== 'test' && mode !== 'live') throw new AdminUsageError('--mode is test or live');
      if (kind !== 'secret' && kind !== 'publishable') throw new AdminUsageError('--kind is secret or publishable');
      if (!(await prisma.business.findUnique({ where: { id: businessId } }))) throw new AdminUsageError(`no business ${businessId}`);
      const permissions = options.permissions ? options.permissions.split(',').map((p) => p.trim()).filter(Boolean) : [];
      const created = await createApiKey(prisma, { businessId, livemode: mode === 'live', kind, permissions });
      return { id: created.id, key: created.key, mode, kind, permissions: permissions.join(',') || 'all' };
    }
    case 'key revoke': {
      const revoked = await revokeApiKey(prisma, need(options.business, 'business'), need(options.key, 'key'));
      if (!revoked) throw new AdminUsageError('no such active key for that business');
      return { id: options.key, revoked: true };
    }
    default:
      throw new AdminUsageError(ADMIN_USAGE);
  }
}
