import { Resolver } from 'node:dns/promises';
import { DnsUnavailable, type DnsResolver } from '../domain/domains/dns-resolver.ts';

/** No such name, or no record of that type: an answer, not a failure. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

/**
 * DNS through Node's resolver (c-ares): the system's servers, or `servers` (DNS_SERVERS:
 * `1.1.1.1`, `127.0.0.1:5353`, ...). A lookup that times out or fails on the server's side
 * is `DnsUnavailable`.
 */
export function systemResolver(options: { servers?: string[]; timeoutMs?: number } = {}): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 3_000, tries: 2 });
  if (options.servers?.length) resolver.setServers(options.servers);
  const ask = async <T>(lookup: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await lookup();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (ABSENT.has(code)) return [];
      throw new DnsUnavailable(`${code || (err as Error).message}`);
    }
  };
  return {
    txt: async (name) => (await ask(() => resolver.resolveTxt(name))).map((chunks) => chunks.join('')),
    cname: async (name) => (await ask(() => resolver.resolveCname(name))).map((target) => target.toLowerCase().replace(/\.$/, '')),
  };
}
