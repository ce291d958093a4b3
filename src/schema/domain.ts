import { builder } from '../builder.ts';
import { domainRecords, type DnsRecord } from '../domain/domains/domain-records.ts';
import { DOMAIN_FIELDS, domainMachine } from '../domain/domains/domain-state.ts';
import { addDomain, domainVerification, listDomains, verifyDomain } from '../domain/domains/domain-operations.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

const DnsRecordRef = builder.objectRef<DnsRecord>('DnsRecord').implement({
  description: 'A DNS record to create at the domain\'s DNS provider.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'TXT or CNAME.' }),
    name: t.exposeString('name'),
    value: t.exposeString('value'),
    purpose: t.exposeString('purpose'),
  }),
});

const Domain = builder.prismaObject('Domain', {
  description: "A custom hostname for the business's website, verified through DNS.",
  fields: (t) => ({
    ...(exposePublicFields(t, DOMAIN_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.DomainState], description: 'States the domain can move to now.', resolve: (d) => domainMachine.nextStates(d) }),
    records: t.field({
      type: [DnsRecordRef],
      description: 'The DNS records to create at the domain\'s DNS provider (and keep), as its verification read lists them.',
      select: { hostname: true, verificationToken: true },
      resolve: (d, _args, ctx) => domainRecords(ctx.domain.config, d),
    }),
  }),
});

interface Verification {
  domainId: string;
  hostname: string;
  state: string;
  records: DnsRecord[];
}

const DomainVerificationRef = builder.objectRef<Verification>('DomainVerification').implement({
  description: 'What proves a custom domain: the DNS records to create, and where verification stands.',
  fields: (t) => ({
    domainId: t.exposeID('domainId'),
    hostname: t.exposeString('hostname'),
    state: t.field({ type: enums.DomainState, resolve: (v) => v.state as never }),
    records: t.field({ type: [DnsRecordRef], resolve: (v) => v.records }),
  }),
});

const list = operationField(listDomains);
const add = operationField(addDomain);
const requirements = operationField(domainVerification);
const verify = operationField(verifyDomain);

builder.queryFields((t) => ({
  domains: list.connection(t, Domain),
  domainVerification: requirements.plain(t, DomainVerificationRef),
}));

builder.mutationFields((t) => ({
  addDomain: add.prisma(t, 'Domain'),
  verifyDomain: verify.prisma(t, 'Domain'),
}));
