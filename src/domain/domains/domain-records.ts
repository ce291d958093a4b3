import type { Domain } from '../../generated/prisma/client.ts';
import { DnsUnavailable, type DnsResolver } from './dns-resolver.ts';

export interface DnsRecord {
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
  /** What the record is for, in words. */
  purpose: string;
}

/** The name of the TXT record that proves ownership of `hostname`. */
export const verificationName = (hostname: string) => `_rental-verification.${hostname}`;

/**
 * The DNS records a custom domain needs: a TXT record proving the business controls the name,
 * and a CNAME sending its visitors to the platform's sites (`target`, CUSTOM_DOMAIN_TARGET).
 */
export function requiredRecords(domain: Pick<Domain, 'hostname' | 'verificationToken'>, target: string): DnsRecord[] {
  return [
    { type: 'TXT', name: verificationName(domain.hostname), value: `rental-verification=${domain.verificationToken}`, purpose: 'proves that the business controls the domain' },
    { type: 'CNAME', name: domain.hostname, value: target, purpose: "sends the domain's visitors to the business's website" },
  ];
}

/**
 * A domain's records as every answer shows them (the domain itself, from its creation on, and
 * its verification read): one place, so the two cannot disagree.
 */
export const domainRecords = (config: { customDomainTarget: string }, domain: Pick<Domain, 'hostname' | 'verificationToken'>) => requiredRecords(domain, config.customDomainTarget);

/** The required records DNS does not show (each as `TYPE name → value`); throws DnsUnavailable when DNS cannot answer. */
export async function missingRecords(resolver: DnsResolver, records: DnsRecord[]): Promise<string[]> {
  const missing: string[] = [];
  for (const record of records) {
    const found = record.type === 'TXT' ? await resolver.txt(record.name) : await resolver.cname(record.name);
    const expected = record.type === 'TXT' ? record.value : record.value.toLowerCase();
    if (!found.includes(expected)) missing.push(`${record.type} ${record.name} → ${record.value}`);
  }
  return missing;
}

export { DnsUnavailable };
