import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInactiveVehicleViolation } from '../src/db/database-errors.ts';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, nextPeriod } from './support/fixtures.ts';

/*
 * The fleet beyond the first release: a vehicle's update and archive, its busy periods, and
 * its pricing rules, priced day by day in quotes and bookings, over REST and GraphQL.
 */
describe.each(ENGINES)('fleet on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let pk: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };
  const eventsOf = async (type: string) => (await api.get(`/v1/events?type=${type}&limit=100`)).body.data as any[];

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    pk = restClient(t.baseUrl, t.business.test_public_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  describe('update', () => {
    it('changes only the fields sent, removes metadata keys set to "", and emits vehicle.updated', async () => {
      const vehicle = await createVehicle(api, { make: 'Toyota', metadata: { color: 'red', fleet: 'north' } });
      const res = await api.post(`/v1/vehicles/${vehicle.id}`, {
        daily_rate_cents: 5400,
        make: null,
        location: { city: 'Austin' },
        delivery_options: [{ name: 'Airport', fee_cents: 3500 }],
        access_method: 'lockbox',
        minimum_age: 25,
        features: ['bluetooth'],
        metadata: { color: '', plate: 'TX-1' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'vehicle',
        id: vehicle.id,
        name: 'Toyota Corolla',
        make: null,
        daily_rate_cents: 5400,
        deposit_cents: 25000,
        location: { city: 'Austin' },
        delivery_options: [{ name: 'Airport', fee_cents: 3500, description: null }],
        access_method: 'lockbox',
        minimum_age: 25,
        features: ['bluetooth'],
        metadata: { fleet: 'north', plate: 'TX-1' },
        status: 'active',
        next_states: ['archived'],
      });
      const event = (await eventsOf('vehicle.updated')).find((e) => e.data.object.id === vehicle.id);
      expect(event.data.object).toMatchObject({ daily_rate_cents: 5400, metadata: { fleet: 'north', plate: 'TX-1' } });
      expect((await api.get(`/v1/vehicles/${vehicle.id}`)).body.daily_rate_cents).toBe(5400);
      const cleared = await api.post(`/v1/vehicles/${vehicle.id}`, { location: null, unlimited_miles_daily_cents: null, model: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ location: null, unlimited_miles_daily_cents: null, model: null, daily_rate_cents: 5400 });
    });

    it('leaves existing bookings at the price they were made with', async () => {
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id, nextPeriod(3));
      expect((await api.post(`/v1/vehicles/${vehicle.id}`, { daily_rate_cents: 9900, deposit_cents: 1 })).status).toBe(200);
      expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ daily_rate_cents: 4900, rental_cents: 3 * 4900, deposit_cents: 25000 });
      const quote = (await api.post('/v1/quotes', { vehicle_id: vehicle.id, ...nextPeriod(3) })).body;
      expect(quote).toMatchObject({ daily_rate_cents: 9900, rental_cents: 3 * 9900, deposit_cents: 1 });
    });

    it('refuses a null for a required field, unknown fields and unknown vehicles', async () => {
      const vehicle = await createVehicle(api);
      expect((await api.post(`/v1/vehicles/${vehicle.id}`, { name: null })).body.error).toMatchObject({ type: 'validation_error', param: 'name' });
      expect((await api.post(`/v1/vehicles/${vehicle.id}`, { daily_rate_cents: 0 })).body.error).toMatchObject({ param: 'daily_rate_cents' });
      expect((await api.post(`/v1/vehicles/${vehicle.id}`, { delivery_options: [{ name: 'x' }] })).body.error).toMatchObject({ param: 'delivery_options.0.fee_cents' });
      expect((await api.post(`/v1/vehicles/${vehicle.id}`, { colour: 'blue' })).body.error).toMatchObject({ code: 'parameter_unknown' });
      expect((await api.post('/v1/vehicles/veh_nope', { name: 'X' })).status).toBe(404);
      const foreign = await createVehicle(restClient(t.baseUrl, t.other.test_secret_key));
      expect((await api.post(`/v1/vehicles/${foreign.id}`, { name: 'Mine now' })).status).toBe(404);
    });

    it('updates over GraphQL', async () => {
      const vehicle = await createVehicle(api);
      const res = await gql(`mutation($id: ID!, $input: UpdateVehicleInput!) { updateVehicle(id: $id, input: $input) { id name year metadata } }`, {
        id: vehicle.id,
        input: { name: 'Corolla Hybrid', year: 2025, metadata: { a: 'b' } },
      });
      expect(res.errors).toBeUndefined();
      expect(res.data.updateVehicle).toEqual({ id: vehicle.id, name: 'Corolla Hybrid', year: 2025, metadata: { a: 'b' } });
    });
  });

  describe('archive', () => {
    it('is refused while a booking holds the vehicle, naming it; allowed once it is canceled; then the vehicle takes no quotes or bookings', async () => {
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id);
      const refused = await api.call('DELETE', `/v1/vehicles/${vehicle.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ type: 'conflict', code: 'vehicle_has_bookings', booking_count: 1, booking_ids: [booking.id] });
      expect(refused.body.error.message).toContain(booking.id);
      expect((await api.get(`/v1/vehicles/${vehicle.id}`)).body.status).toBe('active');

      expect((await api.post(`/v1/bookings/${booking.id}/cancel`)).status).toBe(200);
      const archived = await api.call('DELETE', `/v1/vehicles/${vehicle.id}`);
      expect(archived.status).toBe(200);
      expect(archived.body).toMatchObject({ object: 'vehicle', id: vehicle.id, status: 'archived', next_states: [] });
      expect((await eventsOf('vehicle.archived')).map((e) => e.data.object.id)).toContain(vehicle.id);

      // Gone from the fleet list and the availability search, still readable by id.
      const p = nextPeriod();
      expect((await api.get('/v1/vehicles?limit=100')).body.data.map((v: any) => v.id)).not.toContain(vehicle.id);
      expect((await api.get(`/v1/availability?start_at=${p.start_at}&end_at=${p.end_at}&limit=100`)).body.data.map((v: any) => v.id)).not.toContain(vehicle.id);
      expect((await api.get(`/v1/vehicles/${vehicle.id}`)).body.status).toBe('archived');

      const quote = await api.post('/v1/quotes', { vehicle_id: vehicle.id, ...p });
      expect(quote.status).toBe(409);
      expect(quote.body.error).toMatchObject({ code: 'vehicle_archived', param: 'vehicle_id', vehicle_id: vehicle.id });
      const again = await api.post('/v1/bookings', { vehicle_id: vehicle.id, ...p, customer });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'vehicle_archived' });

      // The database itself keeps bookings off an archived vehicle (what a booking racing the archive meets).
      const row = await t.db.prisma.booking.findUniqueOrThrow({ where: { id: booking.id } });
      const refusedByDatabase = await t.db.prisma.booking.create({ data: { ...row, id: `${row.id}x`, dayRates: [], metadata: {} } }).catch((err: unknown) => err);
      expect(isInactiveVehicleViolation(refusedByDatabase)).toBe(true);

      const twice = await api.call('DELETE', `/v1/vehicles/${vehicle.id}`);
      expect(twice.status).toBe(409);
      expect(twice.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'archived' });
    });

    it('counts every booking that still holds the vehicle and ignores canceled ones', async () => {
      const vehicle = await createVehicle(api);
      const kept = [await createBooking(api, vehicle.id), await createBooking(api, vehicle.id)];
      const canceled = await createBooking(api, vehicle.id);
      await api.post(`/v1/bookings/${canceled.id}/cancel`);
      expect((await api.post(`/v1/test/bookings/${kept[1].id}/payment/succeed`)).status).toBe(200);
      const refused = await api.call('DELETE', `/v1/vehicles/${vehicle.id}`);
      expect(refused.body.error).toMatchObject({ code: 'vehicle_has_bookings', booking_count: 2 });
      expect([...refused.body.error.booking_ids].sort()).toEqual(kept.map((b) => b.id).sort());
    });

    it('archives over GraphQL', async () => {
      const vehicle = await createVehicle(api);
      const res = await gql(`mutation($id: ID!) { archiveVehicle(id: $id) { id status nextStates } }`, { id: vehicle.id });
      expect(res.data.archiveVehicle).toEqual({ id: vehicle.id, status: 'archived', nextStates: [] });
    });

    it('never lets an archive and a booking made at the same moment both succeed', async () => {
      for (let round = 0; round < 6; round++) {
        const vehicle = await createVehicle(api);
        const bookings = Array.from({ length: 4 }, () => api.post('/v1/bookings', { vehicle_id: vehicle.id, ...nextPeriod(1), customer }));
        const archive = api.call('DELETE', `/v1/vehicles/${vehicle.id}`);
        const [archived, ...booked] = await Promise.all([archive, ...bookings]);
        const made = booked.filter((b) => b.status === 201);
        for (const b of booked) expect([201, 409]).toContain(b.status);
        if (archived.status === 200) {
          expect(made).toEqual([]);
          for (const b of booked) expect(b.body.error.code).toBe('vehicle_archived');
        } else {
          expect(archived.body.error.code).toBe('vehicle_has_bookings');
          expect(archived.body.error.booking_count).toBeGreaterThan(0);
          expect(archived.body.error.booking_count).toBeLessThanOrEqual(made.length);
        }
        const open = (await api.get(`/v1/bookings?vehicle_id=${vehicle.id}&limit=100`)).body.data;
        expect(open.length).toBe(made.length);
      }
    });
  });

  describe('availability of one vehicle', () => {
    it('lists busy periods with their reason, without ids or customer data, to publishable keys too', async () => {
      const vehicle = await createVehicle(api);
      const held = await createBooking(api, vehicle.id, nextPeriod(2));
      const paid = await createBooking(api, vehicle.id, nextPeriod(1));
      expect((await api.post(`/v1/test/bookings/${paid.id}/payment/succeed`)).status).toBe(200);
      const canceled = await createBooking(api, vehicle.id, nextPeriod(1));
      await api.post(`/v1/bookings/${canceled.id}/cancel`);

      const res = await pk.get(`/v1/vehicles/${vehicle.id}/availability?start_at=${encodeURIComponent(new Date().toISOString())}&end_at=${encodeURIComponent(new Date(Date.now() + 365 * 86_400_000).toISOString())}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'vehicle_availability', vehicle_id: vehicle.id, livemode: false });
      expect(res.body.busy_periods).toEqual([
        { start_at: held.start_at, end_at: held.end_at, reason: 'hold' },
        { start_at: paid.start_at, end_at: paid.end_at, reason: 'booking' },
      ]);
      const text = JSON.stringify(res.body);
      for (const secret of [held.id, paid.id, held.customer_id, 'ada@example.com', 'Ada']) expect(text).not.toContain(secret);

      // A window that holds only the paid booking's end.
      const narrow = await api.get(`/v1/vehicles/${vehicle.id}/availability?start_at=${encodeURIComponent(new Date(Date.parse(paid.end_at) - 3_600_000).toISOString())}&end_at=${encodeURIComponent(paid.end_at)}`);
      expect(narrow.body.busy_periods).toEqual([{ start_at: paid.start_at, end_at: paid.end_at, reason: 'booking' }]);
    });

    it('defaults to the next 90 days and bounds the window', async () => {
      const vehicle = await createVehicle(api);
      const res = await api.get(`/v1/vehicles/${vehicle.id}/availability`);
      expect(res.status).toBe(200);
      const days = (Date.parse(res.body.end_at) - Date.parse(res.body.start_at)) / 86_400_000;
      expect(days).toBe(90);
      expect(Math.abs(Date.parse(res.body.start_at) - Date.now())).toBeLessThan(60_000);
      expect(res.body.busy_periods).toEqual([]);
      const tooLong = await api.get(`/v1/vehicles/${vehicle.id}/availability?start_at=2027-01-01T00:00:00Z&end_at=2028-06-01T00:00:00Z`);
      expect(tooLong.status).toBe(422);
      expect(tooLong.body.error.param).toBe('end_at');
      expect((await api.get(`/v1/vehicles/${vehicle.id}/availability?start_at=2027-02-01T00:00:00Z&end_at=2027-01-01T00:00:00Z`)).body.error.param).toBe('end_at');
      expect((await api.get('/v1/vehicles/veh_nope/availability')).status).toBe(404);
      // A window whose default end runs past the year 9999 is refused (422), not a 500.
      const late = await api.get(`/v1/vehicles/${vehicle.id}/availability?start_at=9999-12-31T23:59:59Z`);
      expect([late.status, late.body.error.param]).toEqual([422, 'start_at']);
    });

    it('answers over GraphQL', async () => {
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id);
      const res = await gql(`query($id: ID!, $from: DateTime, $to: DateTime) { vehicleAvailability(vehicleId: $id, startAt: $from, endAt: $to) { vehicleId busyPeriods { startAt endAt reason } } }`, {
        id: vehicle.id,
        from: booking.start_at,
        to: booking.end_at,
      });
      expect(res.data.vehicleAvailability).toEqual({ vehicleId: vehicle.id, busyPeriods: [{ startAt: booking.start_at, endAt: booking.end_at, reason: 'hold' }] });
    });
  });

  describe('delivery options', () => {
    type Refusal = { what: string; options: unknown; param: string; restParam?: string; restCode?: string };
    // Each bad list, and the field the refusal names (REST names a key it does not know before a field that is missing).
    const refusals: Refusal[] = [
      { what: 'an object with none of the fields', options: [{ '0': 'a' }], param: 'delivery_options.0.name', restParam: 'delivery_options.0.0', restCode: 'parameter_unknown' },
      { what: 'a fee that is not a number', options: [{ name: 'Airport', fee_cents: 'abc' }], param: 'delivery_options.0.fee_cents' },
      { what: 'a fee that is not whole cents', options: [{ name: 'Airport', fee_cents: 10.5 }], param: 'delivery_options.0.fee_cents' },
      { what: 'a missing fee', options: [{ name: 'Airport' }], param: 'delivery_options.0.fee_cents', restCode: 'parameter_missing' },
      { what: 'a missing name', options: [{ fee_cents: 100 }], param: 'delivery_options.0.name', restCode: 'parameter_missing' },
      { what: 'a blank name', options: [{ name: '  ', fee_cents: 100 }], param: 'delivery_options.0.name' },
      { what: 'a negative fee', options: [{ name: 'Airport', fee_cents: -1 }], param: 'delivery_options.0.fee_cents' },
      { what: 'an unknown key', options: [{ name: 'Airport', fee_cents: 100, colour: 'red' }], param: 'delivery_options.0.colour', restCode: 'parameter_unknown' },
      { what: 'a second option of the same name', options: [{ name: 'Airport', fee_cents: 100 }, { name: 'Airport', fee_cents: 200 }], param: 'delivery_options.1.name' },
      { what: 'more than 20 options', options: Array.from({ length: 21 }, (_, i) => ({ name: `Stop ${i}`, fee_cents: 100 })), param: 'delivery_options' },
      { what: 'a string instead of a list of options', options: 'airport', param: 'delivery_options', restParam: 'delivery_options' },
    ];
    /** The same options as GraphQL input (its field names). */
    const asGraphql = (options: unknown): unknown =>
      Array.isArray(options)
        ? options.map((o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k === 'fee_cents' ? 'feeCents' : k, v])))
        : options;
    const valid = [
      { name: 'Airport delivery', fee_cents: 3500, description: 'Terminal 1' },
      { name: 'Hotel drop-off', fee_cents: 0, description: null },
    ];

    it.each(refusals)('refuses $what with 422 naming the field, over REST, on create, update and pricing', async ({ options, param, restParam, restCode }) => {
      const vehicle = await createVehicle(api, { delivery_options: valid });
      const before = await t.db.prisma.vehicle.count();
      const answers = [
        await api.post('/v1/vehicles', { name: 'Van', daily_rate_cents: 100, delivery_options: options }),
        await api.post(`/v1/vehicles/${vehicle.id}`, { delivery_options: options }),
        await api.post(`/v1/vehicles/${vehicle.id}/pricing`, { delivery_options: options }),
      ];
      for (const res of answers) {
        expect(res.status, JSON.stringify(res.body)).toBe(422);
        expect(res.body.error).toMatchObject({ type: 'validation_error', code: restCode ?? 'parameter_invalid', param: restParam ?? param });
      }
      // Nothing was created or changed.
      expect(await t.db.prisma.vehicle.count()).toBe(before);
      expect((await api.get(`/v1/vehicles/${vehicle.id}`)).body.delivery_options).toEqual(valid);
    });

    it.each(refusals)('refuses $what with a validation_error naming the field, over GraphQL, on create, update and pricing', async ({ options, param }) => {
      const vehicle = await createVehicle(api, { delivery_options: valid });
      const deliveryOptions = asGraphql(options);
      const answers = [
        await gql('mutation($input: CreateVehicleInput!) { createVehicle(input: $input) { id } }', { input: { name: 'Van', dailyRateCents: 100, deliveryOptions } }),
        await gql('mutation($id: ID!, $input: UpdateVehicleInput!) { updateVehicle(id: $id, input: $input) { id } }', { id: vehicle.id, input: { deliveryOptions } }),
        await gql('mutation($id: ID!, $input: UpdateVehiclePricingInput!) { updateVehiclePricing(vehicleId: $id, input: $input) { vehicleId } }', { id: vehicle.id, input: { deliveryOptions } }),
      ];
      for (const res of answers) {
        expect(res.data?.createVehicle ?? res.data?.updateVehicle ?? res.data?.updateVehiclePricing ?? null, JSON.stringify(res.errors)).toBeNull();
        expect(res.errors?.[0].extensions).toMatchObject({ type: 'validation_error', code: 'parameter_invalid', status: 422, param });
      }
      expect((await api.get(`/v1/vehicles/${vehicle.id}`)).body.delivery_options).toEqual(valid);
    });

    it('keeps a valid list as sent, over REST, and a quote can choose one of its options', async () => {
      const created = await api.post('/v1/vehicles', { name: 'Van', daily_rate_cents: 100, delivery_options: [{ name: '  Airport delivery ', fee_cents: 3500, description: 'Terminal 1' }, { name: 'Hotel drop-off', fee_cents: 0 }] });
      expect(created.status).toBe(201);
      expect(created.body.delivery_options).toEqual(valid);
      expect((await api.get(`/v1/vehicles/${created.body.id}`)).body.delivery_options).toEqual(valid);
      expect((await api.get(`/v1/vehicles/${created.body.id}/pricing`)).body.delivery_options).toEqual(valid);
      const quote = await api.post('/v1/quotes', { vehicle_id: created.body.id, ...nextPeriod(2), delivery_option: 'Airport delivery' });
      expect(quote.body).toMatchObject({ delivery_option: 'Airport delivery', delivery_fee_cents: 3500 });

      const updated = await api.post(`/v1/vehicles/${created.body.id}`, { delivery_options: [valid[1]] });
      expect(updated.body.delivery_options).toEqual([valid[1]]);
      const repriced = await api.post(`/v1/vehicles/${created.body.id}/pricing`, { delivery_options: [] });
      expect(repriced.body.delivery_options).toEqual([]);
      expect((await api.get(`/v1/vehicles/${created.body.id}`)).body.delivery_options).toEqual([]);
      // Without the field, a new vehicle has none.
      expect((await createVehicle(api)).delivery_options).toEqual([]);
    });

    it('keeps a valid list as sent, over GraphQL', async () => {
      const created = await gql('mutation($input: CreateVehicleInput!) { createVehicle(input: $input) { id deliveryOptions } }', {
        input: { name: 'Van', dailyRateCents: 100, deliveryOptions: asGraphql(valid) },
      });
      expect(created.errors).toBeUndefined();
      const id = created.data.createVehicle.id;
      // The vehicle's list reads as REST shows it (the stored form); the pricing's in GraphQL's names.
      expect(created.data.createVehicle.deliveryOptions).toEqual(valid);
      const read = await gql('query($id: ID!) { vehiclePricing(vehicleId: $id) { deliveryOptions { name feeCents description } } }', { id });
      expect(read.data.vehiclePricing.deliveryOptions).toEqual(asGraphql(valid));
      const updated = await gql('mutation($id: ID!, $input: UpdateVehicleInput!) { updateVehicle(id: $id, input: $input) { deliveryOptions } }', { id, input: { deliveryOptions: [{ name: 'Curbside', feeCents: 900 }] } });
      expect(updated.data.updateVehicle.deliveryOptions).toEqual([{ name: 'Curbside', fee_cents: 900, description: null }]);
      expect((await api.get(`/v1/vehicles/${id}`)).body.delivery_options).toEqual([{ name: 'Curbside', fee_cents: 900, description: null }]);
    });

    it('is described in the OpenAPI document: each option an object of name, fee_cents and description, nothing else', async () => {
      const doc = (await restClient(t.baseUrl, null).get('/v1/openapi.json')).body;
      const schemas = doc.components.schemas;
      const bodyOf = (path: string) => {
        const ref = doc.paths[path].post.requestBody.content['application/json'].schema.$ref as string;
        return schemas[ref.replace('#/components/schemas/', '')];
      };
      for (const path of ['/v1/vehicles', '/v1/vehicles/{vehicle_id}', '/v1/vehicles/{vehicle_id}/pricing']) {
        const list = bodyOf(path).properties.delivery_options;
        expect(list, path).toMatchObject({ type: 'array', maxItems: 20, items: { $ref: '#/components/schemas/DeliveryOptionInput' } });
      }
      expect(schemas.DeliveryOptionInput).toMatchObject({
        type: 'object',
        required: ['name', 'fee_cents'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          fee_cents: { type: 'integer', minimum: 0 },
          description: { anyOf: [{ type: 'string', maxLength: 500 }, { type: 'null' }] },
        },
      });
      expect(Object.keys(schemas.DeliveryOptionInput.properties).sort()).toEqual(['description', 'fee_cents', 'name']);
    });
  });

  describe('pricing', () => {
    // 2027-07-01 is a Thursday; the business prices in UTC.
    const rules = {
      weekend_rate_cents: 6900,
      seasonal_rates: [{ name: 'Fourth of July', start_date: '2027-07-04', end_date: '2027-07-05', daily_rate_cents: 9900 }],
      delivery_options: [{ name: 'Airport delivery', fee_cents: 3500, description: 'Terminal 1' }],
    };
    const expectedDays = [
      { date: '2027-07-01', rule: 'base', rate_cents: 4900, season: null },
      { date: '2027-07-02', rule: 'base', rate_cents: 4900, season: null },
      { date: '2027-07-03', rule: 'weekend', rate_cents: 6900, season: null },
      { date: '2027-07-04', rule: 'seasonal', rate_cents: 9900, season: 'Fourth of July' },
      { date: '2027-07-05', rule: 'seasonal', rate_cents: 9900, season: 'Fourth of July' },
      { date: '2027-07-06', rule: 'base', rate_cents: 4900, season: null },
    ];
    const rental = 3 * 4900 + 6900 + 2 * 9900;
    const july = { start_at: '2027-07-01T10:00:00Z', end_at: '2027-07-07T10:00:00Z' };

    it('reads the defaults, then updates the rules and emits vehicle.updated', async () => {
      const vehicle = await createVehicle(api);
      expect((await api.get(`/v1/vehicles/${vehicle.id}/pricing`)).body).toEqual({
        object: 'vehicle_pricing',
        vehicle_id: vehicle.id,
        livemode: false,
        currency: 'usd',
        daily_rate_cents: 4900,
        weekend_rate_cents: null,
        weekend_days: ['saturday', 'sunday'],
        seasonal_rates: [],
        unlimited_miles_daily_cents: 1500,
        deposit_cents: 25000,
        included_miles: 200,
        extra_mile_fee_cents: 35,
        delivery_options: [],
      });
      const updated = await api.post(`/v1/vehicles/${vehicle.id}/pricing`, { ...rules, unlimited_miles_daily_cents: null });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        weekend_rate_cents: 6900,
        seasonal_rates: [{ name: 'Fourth of July', start_date: '2027-07-04', end_date: '2027-07-05', daily_rate_cents: 9900 }],
        unlimited_miles_daily_cents: null,
        delivery_options: [{ name: 'Airport delivery', fee_cents: 3500, description: 'Terminal 1' }],
      });
      expect((await api.get(`/v1/vehicles/${vehicle.id}`)).body).toMatchObject({ weekend_rate_cents: 6900, unlimited_miles_daily_cents: null });
      expect((await eventsOf('vehicle.updated')).find((e) => e.data.object.id === vehicle.id).data.object).toMatchObject({ weekend_rate_cents: 6900 });
      expect((await pk.get(`/v1/vehicles/${vehicle.id}/pricing`)).body.error.code).toBe('secret_key_required');
    });

    it('refuses overlapping or reversed seasons and unknown weekdays, naming the field', async () => {
      const vehicle = await createVehicle(api);
      const season = (start: string, end: string) => ({ start_date: start, end_date: end, daily_rate_cents: 100 });
      const overlap = await api.post(`/v1/vehicles/${vehicle.id}/pricing`, { seasonal_rates: [season('2027-06-01', '2027-06-30'), season('2027-06-30', '2027-07-10')] });
      expect(overlap.status).toBe(422);
      expect(overlap.body.error.param).toBe('seasonal_rates.1.start_date');
      expect((await api.post(`/v1/vehicles/${vehicle.id}/pricing`, { seasonal_rates: [season('2027-06-10', '2027-06-01')] })).body.error.param).toBe('seasonal_rates.0.end_date');
      expect((await api.post(`/v1/vehicles/${vehicle.id}/pricing`, { seasonal_rates: [season('2027-02-30', '2027-03-01')] })).body.error.param).toBe('seasonal_rates.0.start_date');
      expect((await api.post(`/v1/vehicles/${vehicle.id}/pricing`, { weekend_days: ['caturday'] })).body.error.param).toBe('weekend_days.0');
    });

    it('prices each day of a quote by its rule, and the booking made from it and one made without keep the same days', async () => {
      const vehicle = await createVehicle(api);
      expect((await api.post(`/v1/vehicles/${vehicle.id}/pricing`, rules)).status).toBe(200);
      const quote = await api.post('/v1/quotes', { vehicle_id: vehicle.id, ...july, unlimited_miles: true });
      expect(quote.status).toBe(201);
      expect(quote.body).toMatchObject({ days: 6, daily_rate_cents: 4900, rental_cents: rental, unlimited_miles_fee_cents: 6 * 1500, total_cents: rental + 6 * 1500 });
      expect(quote.body.day_rates).toEqual(expectedDays);

      // The rules change after the quote: the booking made from it keeps the quoted days.
      expect((await api.post(`/v1/vehicles/${vehicle.id}/pricing`, { weekend_rate_cents: 7900 })).status).toBe(200);
      const fromQuote = await api.post('/v1/bookings', { vehicle_id: vehicle.id, ...july, unlimited_miles: true, quote_id: quote.body.id, customer });
      expect(fromQuote.status).toBe(201);
      expect(fromQuote.body).toMatchObject({ rental_cents: rental, total_cents: rental + 6 * 1500 });
      expect(fromQuote.body.day_rates).toEqual(expectedDays);

      const other = await createVehicle(api);
      await api.post(`/v1/vehicles/${other.id}/pricing`, rules);
      const direct = await api.post('/v1/bookings', { vehicle_id: other.id, ...july, customer });
      expect(direct.body).toMatchObject({ rental_cents: rental, total_cents: rental, daily_rate_cents: 4900 });
      expect(direct.body.day_rates).toEqual(expectedDays);
      expect((await api.get(`/v1/bookings/${direct.body.id}`)).body.day_rates).toEqual(expectedDays);
      // Its event carries the same days as the REST answer.
      const created = (await api.get(`/v1/events?type=booking.created&booking_id=${direct.body.id}`)).body.data[0];
      expect(created.data.object.day_rates).toEqual(expectedDays);
      const payment = (await api.get(`/v1/bookings/${direct.body.id}/payment`)).body;
      expect(payment.amount_cents).toBe(rental);
    });

    it("adds a chosen delivery option's fee to the quote's total, and a booking from the quote keeps it", async () => {
      const vehicle = await createVehicle(api);
      await api.post(`/v1/vehicles/${vehicle.id}/pricing`, rules);
      const quote = await api.post('/v1/quotes', { vehicle_id: vehicle.id, ...july, delivery_option: 'Airport delivery' });
      expect(quote.body).toMatchObject({ delivery_option: 'Airport delivery', delivery_fee_cents: 3500, rental_cents: rental, total_cents: rental + 3500 });
      const booking = await api.post('/v1/bookings', { vehicle_id: vehicle.id, ...july, quote_id: quote.body.id, customer });
      expect(booking.body).toMatchObject({ delivery_fee_cents: 3500, total_cents: rental + 3500 });
      expect((await api.get(`/v1/bookings/${booking.body.id}/payment`)).body.amount_cents).toBe(rental + 3500);
      const unknown = await api.post('/v1/quotes', { vehicle_id: vehicle.id, ...july, delivery_option: 'Moon' });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error).toMatchObject({ param: 'delivery_option' });
      expect(unknown.body.error.message).toContain('Airport delivery');
    });

    it('reads and updates pricing and quotes day by day over GraphQL', async () => {
      const vehicle = await createVehicle(api);
      const updated = await gql(
        `mutation($id: ID!, $input: UpdateVehiclePricingInput!) { updateVehiclePricing(vehicleId: $id, input: $input) { weekendRateCents weekendDays seasonalRates { name startDate endDate dailyRateCents } deliveryOptions { name feeCents } } }`,
        {
          id: vehicle.id,
          input: { weekendRateCents: 6900, weekendDays: ['SATURDAY', 'SUNDAY'].map((d) => d.toLowerCase()), seasonalRates: [{ name: 'Fourth of July', startDate: '2027-07-04', endDate: '2027-07-05', dailyRateCents: 9900 }], deliveryOptions: [{ name: 'Airport delivery', feeCents: 3500 }] },
        },
      );
      expect(updated.errors).toBeUndefined();
      expect(updated.data.updateVehiclePricing).toEqual({
        weekendRateCents: 6900,
        weekendDays: ['saturday', 'sunday'],
        seasonalRates: [{ name: 'Fourth of July', startDate: '2027-07-04', endDate: '2027-07-05', dailyRateCents: 9900 }],
        deliveryOptions: [{ name: 'Airport delivery', feeCents: 3500 }],
      });
      const read = await gql(`query($id: ID!) { vehiclePricing(vehicleId: $id) { dailyRateCents weekendRateCents } }`, { id: vehicle.id });
      expect(read.data.vehiclePricing).toEqual({ dailyRateCents: 4900, weekendRateCents: 6900 });
      const quote = await gql(`mutation($input: CreateQuoteInput!) { createQuote(input: $input) { rentalCents dayRates { date rule rateCents season } } }`, {
        input: { vehicleId: vehicle.id, startAt: july.start_at, endAt: july.end_at },
      });
      expect(quote.data.createQuote.rentalCents).toBe(rental);
      expect(quote.data.createQuote.dayRates).toEqual(expectedDays.map((d) => ({ date: d.date, rule: d.rule, rateCents: d.rate_cents, season: d.season })));
    });
  });
});
