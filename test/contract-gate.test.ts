// The breaking-change gate: the contract as it is now against the one last released
// (contract/), by api-smart-diff (OpenAPI 3.1) and @graphql-inspector/core (GraphQL). A
// breaking change fails this test unless CHANGELOG.md lists it under a newer version.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allowedChanges, breakingChanges, changelogPath, currentContract, snapshotContract, type Contract } from '../scripts/contract.ts';

const changelog = readFileSync(changelogPath, 'utf8');
const released = snapshotContract();
const current = currentContract(released.version);

type Doc = { paths: Record<string, Record<string, any>> };
const clone = <T>(value: T): T => structuredClone(value);

/** The released contract with one change made to its OpenAPI document or its GraphQL schema. */
function changed(edit: { openapi?: (doc: Doc) => void; graphql?: (sdl: string) => string }): Contract {
  const openapi = clone(released.openapi) as Doc;
  edit.openapi?.(openapi);
  return { ...released, openapi, graphql: edit.graphql ? edit.graphql(released.graphql) : released.graphql };
}

/** The JSON schema of a JSON request body or 2xx answer, followed to its component. */
function bodySchema(doc: Doc, op: any, where: 'request' | 'response'): any {
  const content = where === 'request' ? op.requestBody.content : (Object.entries(op.responses).find(([s]) => s.startsWith('2'))![1] as any).content;
  const schema = content['application/json'].schema;
  return schema.$ref ? (doc as any).components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
}

describe('breaking-change gate', () => {
  it('finds no breaking change since the released contract that CHANGELOG.md does not list under a newer version', { timeout: 120_000 }, async () => {
    const allowed = allowedChanges(changelog, released.version);
    const unlisted = (await breakingChanges(released, current)).filter((c) => !allowed.has(c.id));
    // The message says what to do: each line is what the changelog's bullet must name.
    expect(
      unlisted.map((c) => `${c.surface}: ${c.description}  (list \`${c.id}\` under a new version in CHANGELOG.md)`),
      'breaking changes of the published contract',
    ).toEqual([]);
  });

  describe('catches each kind of breaking change (planted in a copy of the released contract)', () => {
    const vehicle = '/v1/vehicles/{vehicle_id}';
    const cases: [string, Parameters<typeof changed>[0], string][] = [
      ['a removed REST operation', { openapi: (d) => delete d.paths[vehicle].get }, `GET ${vehicle}`],
      ['a removed answer field', { openapi: (d) => delete bodySchema(d, d.paths[vehicle].get, 'response').properties.daily_rate_cents }, `GET ${vehicle}`],
      ['a changed answer field type', { openapi: (d) => (bodySchema(d, d.paths[vehicle].get, 'response').properties.daily_rate_cents = { type: 'string' }) }, 'components.schemas.Vehicle.properties.daily_rate_cents'],
      ['a new required request field', { openapi: (d) => { const s = bodySchema(d, d.paths['/v1/vehicles'].post, 'request'); s.properties.fleet_code = { type: 'string' }; s.required = [...(s.required ?? []), 'fleet_code']; } }, 'POST /v1/vehicles'],
      ['a narrowed request enum', { openapi: (d) => { const p = d.paths['/v1/bookings'].get.parameters.find((x: any) => x.name === 'state'); p.schema = { type: 'string', enum: ['confirmed'] }; } }, 'GET /v1/bookings'],
      ['a removed GraphQL field', { graphql: (sdl) => sdl.replace(/^(type Vehicle [^{]*\{[\s\S]*?)\n  dailyRateCents: Int!\n/m, '$1\n') }, 'Vehicle.dailyRateCents'],
      ['a renamed GraphQL field', { graphql: (sdl) => sdl.replace(/^(type Vehicle [^{]*\{[\s\S]*?\n  )dailyRateCents: Int!/m, '$1dailyRate: Int!') }, 'Vehicle.dailyRateCents'],
      ['a changed GraphQL field type', { graphql: (sdl) => sdl.replace(/^(type Vehicle [^{]*\{[\s\S]*?\n  )dailyRateCents: Int!/m, '$1dailyRateCents: String!') }, 'Vehicle.dailyRateCents'],
      ['a narrowed GraphQL enum', { graphql: (sdl) => sdl.replace(/^(enum BookingState \{[\s\S]*?)\n  canceled\n/m, '$1\n') }, 'BookingState.canceled'],
      ['a new required GraphQL argument', { graphql: (sdl) => sdl.replace(/^(type Query \{[\s\S]*?\n  vehicle\()/m, '$1fleetCode: String!, ') }, 'Query.vehicle.fleetCode'],
    ];

    it.each(cases)('%s', { timeout: 120_000 }, async (_what, edit, expectedId) => {
      const after = changed(edit);
      const found = await breakingChanges(released, after);
      expect(found.map((c) => c.id).filter((id) => id.startsWith(expectedId)), JSON.stringify(found)).not.toEqual([]);
      const id = found.find((c) => c.id.startsWith(expectedId))!.id;
      // Listed under the released version (or none), it stays refused; under a newer one, it passes.
      expect(allowedChanges(`${changelog}\n- \`${id}\`\n`, released.version).has(id)).toBe(false);
      const next = `# Changelog\n\n## 2.0.0 — 2027-01-01\n\n- Removed: \`${id}\`.\n\n${changelog.replace(/^# Changelog\n/, '')}`;
      expect(allowedChanges(next, released.version).has(id)).toBe(true);
    });

    it('takes additions as compatible: a new optional request field, a new answer field, a new operation', { timeout: 120_000 }, async () => {
      const after = changed({
        openapi: (d) => {
          bodySchema(d, d.paths['/v1/vehicles'].post, 'request').properties.fleet_code = { type: 'string' };
          bodySchema(d, d.paths[vehicle].get, 'response').properties.fleet_code = { type: 'string' };
          d.paths['/v1/fleet_codes'] = { get: { operationId: 'fleetCodes', responses: { '200': { description: 'ok' } } } };
        },
        graphql: (sdl) => sdl.replace(/^(type Vehicle [^{]*\{)/m, '$1\n  fleetCode: String'),
      });
      expect(await breakingChanges(released, after)).toEqual([]);
    });

    /** A nullable schema (`anyOf: [X, {type: 'null'}]`) narrowed to never null: X. */
    const nonNull = (schema: any) => {
      const { anyOf, ...rest } = schema;
      return { ...rest, ...anyOf.find((s: any) => s.type !== 'null') };
    };

    it('takes an answer field narrowed to never null as compatible, REST and GraphQL (no client reads a null it was never sent)', { timeout: 120_000 }, async () => {
      const after = changed({
        openapi: (d: any) => (d.components.schemas.Vehicle.properties.make = nonNull(d.components.schemas.Vehicle.properties.make)),
        graphql: (sdl) => sdl.replace(/^(type Vehicle [^{]*\{[\s\S]*?\n  )make: String\n/m, '$1make: String!\n'),
      });
      expect(after.graphql).not.toBe(released.graphql);
      expect(await breakingChanges(released, after)).toEqual([]);
    });

    it('keeps a request field narrowed to never null, or removed, breaking, REST and GraphQL (a client sending null, or the field, is refused)', { timeout: 120_000 }, async () => {
      const narrowed = changed({
        openapi: (d: any) => (d.components.schemas.CreateVehicleInput.properties.make = nonNull(d.components.schemas.CreateVehicleInput.properties.make)),
        graphql: (sdl) => sdl.replace(/^(input CreateVehicleInput \{[\s\S]*?\n  )make: String\n/m, '$1make: String!\n'),
      });
      expect(narrowed.graphql).not.toBe(released.graphql);
      const found = await breakingChanges(released, narrowed);
      expect(found.filter((c) => c.surface === 'REST').map((c) => c.id).some((id) => id.includes('CreateVehicleInput') || id.startsWith('POST /v1/vehicles'))).toBe(true);
      expect(found.filter((c) => c.surface === 'GraphQL').map((c) => c.id)).toContain('CreateVehicleInput.make');
      const removed = changed({
        openapi: (d: any) => delete d.components.schemas.CreateVehicleInput.properties.make,
        graphql: (sdl) => sdl.replace(/^(input CreateVehicleInput \{[\s\S]*?\n)  """[^"]*"""\n  make: String\n/m, '$1'),
      });
      const gone = await breakingChanges(released, removed);
      expect(gone.filter((c) => c.surface === 'REST').length, JSON.stringify(gone)).toBeGreaterThan(0);
      expect(gone.filter((c) => c.surface === 'GraphQL').map((c) => c.id)).toContain('CreateVehicleInput.make');
    });

    it('takes a field added to an answered object as compatible, listed as required as the service lists every field it sends, in its answers and events alike', { timeout: 120_000 }, async () => {
      const addTo = (schema: any) => ((schema.properties.fleet_code = { type: ['string', 'null'] }), (schema.required = [...(schema.required ?? []), 'fleet_code']));
      // Vehicle is both a 2xx answer and the object of vehicle.* events (webhooks).
      const answered = changed({ openapi: (d: any) => addTo(d.components.schemas.Vehicle) });
      expect(await breakingChanges(released, answered)).toEqual([]);
      // The same in a schema a client sends stays breaking.
      const sent = changed({ openapi: (d: any) => addTo(bodySchema(d, d.paths['/v1/vehicles'].post, 'request')) });
      expect((await breakingChanges(released, sent)).length).toBeGreaterThan(0);
    });
  });
});
