import { errorCatalogue } from '../shared/errors.ts';

/** Custom domains. */
export const DomainErrors = errorCatalogue('domain', {
  domainExists: {
    type: 'conflict',
    code: 'domain_exists',
    description: 'The business already added this hostname (in this environment); use the existing domain.',
    details: ['domain_id'],
    build: (hostname: string, domainId: string) => ({ message: `The domain ${hostname} was added already (${domainId}).`, details: { domain_id: domainId } }),
  },
  recordsMissing: {
    type: 'invalid_request',
    code: 'dns_records_missing',
    description:
      "Verification found the domain's DNS records missing or different: `missing_records` names each (type, name and the value expected). Create them as GET /v1/domains/{domain_id}/verification lists, wait for DNS to update, and verify again. Nothing changed.",
    details: ['missing_records'],
    build: (missing: string[]) => ({ message: `The domain is not verified yet; missing: ${missing.join('; ')}.`, details: { missing_records: missing } }),
  },
  dnsUnavailable: {
    type: 'integration_error',
    code: 'dns_unavailable',
    description: 'DNS did not answer (a timeout or a server failure); nothing changed. Try again later.',
    build: (why: string) => ({ message: `DNS did not answer: ${why}. Try again later.` }),
  },
});
