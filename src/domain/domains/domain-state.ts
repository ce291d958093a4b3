import type { Domain } from '../../generated/prisma/client.ts';
import type { DomainState } from '../../generated/prisma/enums.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { present, type PublicFields } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';

export const DOMAIN_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  hostname: { kind: 'string', description: 'The custom hostname, lower case (www.example.com).' },
  state: { kind: { enum: 'DomainState' } },
  verifiedAt: { kind: 'datetime', nullable: true },
  createdAt: { kind: 'datetime' },
};

/** A custom domain: pending until its DNS records prove the business controls it. */
export const domainMachine = defineMachine({
  object: 'domain',
  states: ['pending_verification', 'verified'] as const satisfies readonly DomainState[],
  initial: ['pending_verification'],
  terminal: ['verified'],
  actions: {
    verify: { from: ['pending_verification'], to: 'verified', event: 'domain.verified' },
  },
});

export function presentDomain(row: Domain) {
  return present('domain', DOMAIN_FIELDS, row, { next_states: domainMachine.nextStates(row) });
}

export const domainLifecycle: Lifecycle<Domain, Domain, keyof typeof domainMachine.actions> = {
  machine: domainMachine,
  records: (db) => db.domain,
  facts: (row) => row,
  present: presentDomain,
  bookingId: () => null,
};
