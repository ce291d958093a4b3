import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { originOf, recordEvent } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';
import { DnsUnavailable } from './dns-resolver.ts';
import { DomainErrors } from './domain.errors.ts';
import { domainRecords, missingRecords } from './domain-records.ts';
import { domainLifecycle, domainMachine, presentDomain } from './domain-state.ts';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A hostname the business can point at the platform: letters, digits and hyphens in dotted labels (IDNs in their xn-- form). */
export const hostname = z
  .string()
  .trim()
  .max(253)
  .transform((h) => h.toLowerCase().replace(/\.$/, ''))
  .refine((h) => {
    const labels = h.split('.');
    return labels.length >= 2 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels.at(-1)!) && !['localhost', 'invalid', 'test', 'local'].includes(labels.at(-1)!);
  }, 'must be a public hostname such as www.example.com')
  .meta({ description: 'The custom hostname (www.example.com); stored lower case.' });

const domainId = id('The domain (dom_...).');
const EXAMPLE = { domainId: 'dom_01jd3m4k5n6p7q8r9s0t1v2w3x' };

export const listDomains = defineOperation({
  name: 'domains',
  summary: 'List domains',
  description: "The business's custom domains, newest first, with their verification state; filter by state or creation time.",
  access: { permission: 'domains:read' },
  args: z.object({ state: z.enum(domainMachine.states).meta({ id: 'DomainState' }).nullish().meta({ description: 'Only domains in this state.' }), ...createdFilters }),
  errors: [],
  example: { state: 'verified' },
  async run(ctx, args, { page, query }) {
    const p = pageQuery(page ?? {});
    const where = { ...(args.state ? { state: args.state } : {}), ...createdWhere(args), ...p.where };
    return toPage(await ctx.db.domain.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const addDomain = defineOperation({
  name: 'addDomain',
  summary: 'Add a domain',
  description:
    'Adds a custom hostname for the business\'s website (domain.created), pending until verified. The answer lists the DNS records to create (`records`, as GET /v1/domains/{domain_id}/verification does); POST /v1/domains/{domain_id}/verify checks them. A hostname the business already added is 409 domain_exists.',
  access: { permission: 'domains:write' },
  args: z.object({ input: z.object({ hostname }).meta({ id: 'AddDomainInput' }) }),
  errors: [DomainErrors.domainExists],
  example: { input: { hostname: 'www.sunnyrentals.com' } },
  async run(ctx, { input }, { query }) {
    const existing = await ctx.db.domain.findFirst({ where: { hostname: input.hostname }, select: { id: true } });
    if (existing) throw DomainErrors.domainExists(input.hostname, existing.id);
    const domain = await ctx.db.$transaction(async (tx) => {
      const created = await tx.domain.create({ data: { id: newId('domain'), ...ctx.tenant, hostname: input.hostname, verificationToken: randomBytes(16).toString('hex') } });
      await recordEvent(tx, originOf(ctx), { type: 'domain.created', object: presentDomain(created) });
      return created;
    });
    return ctx.db.domain.findUniqueOrThrow({ ...query, where: { id: domain.id } });
  },
});

export const domainVerification = defineOperation({
  name: 'domainVerification',
  summary: 'Read verification requirements',
  description: "The DNS records the domain needs: a TXT record at _rental-verification.<hostname> proving the business controls it, and a CNAME sending its visitors to the platform. Create them at the domain's DNS provider, then POST /v1/domains/{domain_id}/verify.",
  access: { permission: 'domains:read' },
  args: z.object({ domainId }),
  errors: [],
  example: EXAMPLE,
  async run(ctx, args) {
    const domain = await found(ctx.db.domain.findUnique({ where: { id: args.domainId } }), 'domain', args.domainId);
    return { domainId: domain.id, hostname: domain.hostname, state: domain.state, records: domainRecords(ctx.config, domain) };
  },
});

export const verifyDomain = defineOperation({
  name: 'verifyDomain',
  summary: 'Check verification',
  description:
    'Looks up the DNS records of GET .../verification. All found: the domain is verified (domain.verified). Any missing: 400 dns_records_missing naming each, and nothing changes; DNS not answering: 502 dns_unavailable. A verified domain is 409.',
  access: { permission: 'domains:write' },
  args: z.object({ domainId }),
  errors: [CommonErrors.invalidStateTransition, DomainErrors.recordsMissing, DomainErrors.dnsUnavailable],
  example: EXAMPLE,
  async run(ctx, args, { query }) {
    const domain = await found(ctx.db.domain.findUnique({ where: { id: args.domainId } }), 'domain', args.domainId);
    domainMachine.check(domain, 'verify');
    let missing: string[];
    try {
      missing = await missingRecords(ctx.dns, domainRecords(ctx.config, domain));
    } catch (err) {
      if (err instanceof DnsUnavailable) throw DomainErrors.dnsUnavailable(err.message);
      throw err;
    }
    if (missing.length) throw DomainErrors.recordsMissing(missing);
    await ctx.db.$transaction((tx) => runAction(tx, originOf(ctx), domainLifecycle, domain, 'verify', { verifiedAt: ctx.now() }));
    return ctx.db.domain.findUniqueOrThrow({ ...query, where: { id: domain.id } });
  },
});
