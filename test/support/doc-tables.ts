import { agreementMachine } from '../../src/domain/agreements/agreement-state.ts';
import { bookingMachine } from '../../src/domain/bookings/booking-state.ts';
import { chargeMachine } from '../../src/domain/charges/charge-state.ts';
import { depositMachine } from '../../src/domain/deposits/deposit-state.ts';
import { disputeMachine } from '../../src/domain/disputes/dispute-state.ts';
import { domainMachine } from '../../src/domain/domains/domain-state.ts';
import { EVENT_TYPES } from '../../src/domain/events/event-types.ts';
import { fileMachine } from '../../src/domain/files/file-state.ts';
import { identityMachine } from '../../src/domain/identity/identity-state.ts';
import { insuranceMachine } from '../../src/domain/insurance/insurance-state.ts';
import { messageMachine } from '../../src/domain/messages/message-state.ts';
import { paymentMachine } from '../../src/domain/payments/payment-state.ts';
import { returnMachine } from '../../src/domain/returns/return-state.ts';
import { invitationMachine } from '../../src/domain/team/invitation-state.ts';
import { accessMachine } from '../../src/domain/vehicle-access/access-state.ts';
import { vehicleMachine } from '../../src/domain/vehicles/vehicle-state.ts';
import { ID_PREFIX } from '../../src/domain/shared/ids.ts';
import { compileRoutes } from '../../rest-adapter/adapter.ts';
import { openApiDocument } from '../../rest-adapter/openapi.ts';
import { routes } from '../../rest-adapter/routes/index.ts';
import { schema } from '../../src/schema/index.ts';

/*
 * The tables of docs/conventions.md that come from the code (the operations answering 201,
 * the lists' parameters, the id prefixes, the lifecycle tables, the event types), written as the document writes them: test/conventions-doc.test.ts checks that the
 * document holds each one exactly.
 */

interface AnyMachine {
  object: string;
  states: readonly string[];
  initial: readonly string[];
  actions: Readonly<Record<string, { from: readonly string[]; to?: string; guards?: readonly string[]; event?: string }>>;
}

/** Every lifecycle, in the order the document shows them. */
export const MACHINES: AnyMachine[] = [
  bookingMachine, paymentMachine, depositMachine, chargeMachine, disputeMachine, identityMachine, agreementMachine,
  insuranceMachine, returnMachine, accessMachine, fileMachine, messageMachine, invitationMachine, domainMachine, vehicleMachine,
] as unknown as AnyMachine[];

const code = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(', ');

/** A lifecycle as the document shows it: its states, then every step that changes the state. */
export function stateTable(machine: AnyMachine): string {
  const moves = Object.entries(machine.actions).filter(([, a]) => a.to !== undefined);
  const final = machine.states.filter((s) => !moves.some(([, a]) => a.from.includes(s) && a.to !== s));
  const lines = [
    `States of \`${machine.object}\`: ${code(machine.states)}. Created in ${code(machine.initial)}; ${final.length ? `final: ${code(final)}` : 'no final state'}.`,
    '',
    '| Step | From | To | Only when | Event |',
    '|---|---|---|---|---|',
    ...moves.map(([name, a]) => `| ${name} | ${code(a.from)} | \`${a.to}\` | ${(a.guards ?? []).join(', ')} | ${a.event ? `\`${a.event}\`` : ''} |`),
  ];
  return lines.join('\n');
}

/** The event types, grouped by what comes before their dot. */
export function eventTypesTable(): string {
  const groups = new Map<string, string[]>();
  for (const type of EVENT_TYPES) {
    const group = type.split('.')[0];
    groups.set(group, [...(groups.get(group) ?? []), type]);
  }
  return ['| Object | Event types |', '|---|---|', ...[...groups].map(([group, types]) => `| ${group} | ${code(types)} |`)].join('\n');
}

/** The operations that answer 201, one line each. */
export function createdList(): string {
  return routes.filter((r) => r.status === 201).map((r) => `- \`${r.method} ${r.path}\``).join('\n');
}

/** Every list of the REST API with the query parameters it takes besides the page's. */
export function listParametersTable(): string {
  const doc = openApiDocument(compileRoutes(schema, routes)) as { paths: Record<string, { get?: { parameters?: { in: string; name: string }[] } }> };
  const page = ['limit', 'starting_after', 'ending_before'];
  const rows = Object.entries(doc.paths)
    .map(([path, ops]) => [path, (ops.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)] as const)
    .filter(([, names]) => page.every((n) => names.includes(n)))
    .map(([path, names]) => `| \`GET ${path}\` | ${code(names.filter((n) => !page.includes(n))) || 'none'} |`);
  return ['| List | Filters |', '|---|---|', ...rows].join('\n');
}

/** The id prefixes, by the kind of object. */
export function idPrefixTable(): string {
  const words = (kind: string) => kind.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  return ['| Prefix | Object |', '|---|---|', ...Object.entries(ID_PREFIX).map(([kind, prefix]) => `| \`${prefix}_\` | ${words(kind)} |`)].join('\n');
}
