import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * Vehicle, Customer and Payment are in Pothos's select mode (src/schema/select-mode.ts): a page
 * reads only the columns its selection asks for, while one row (a read by id, a create's answer)
 * is read whole with no plan, and its fields answer from the row. Both ways must give the same
 * object, field for field: every field of the type (taken from the schema, so a new field is
 * covered) read by id, answered by a create, and reached through a planned page and through a
 * booking, narrow or wide.
 */
describe.each(ENGINES)('select-mode types on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  const fragments: Record<string, string> = {};

  /** `fragment All<Type> on <Type> { ... }` with every field that takes no argument and returns scalars. */
  async function allFieldsFragment(type: string) {
    const res = await gql(`query($name: String!) { __type(name: $name) { fields { name args { name } type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }`, { name: type });
    const leaf = (ref: any): boolean => (ref.ofType ? leaf(ref.ofType) : ref.kind === 'SCALAR' || ref.kind === 'ENUM');
    const names = res.data.__type.fields.filter((f: any) => f.args.length === 0 && leaf(f.type)).map((f: any) => f.name);
    expect(names.length).toBeGreaterThan(5);
    return `fragment All${type} on ${type} { ${names.join(' ')} }`;
  }

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    for (const type of ['Vehicle', 'Customer', 'Payment']) fragments[type] = await allFieldsFragment(type);
  });
  afterAll(async () => t?.close());

  it('answers every field of a vehicle, customer and payment alike, read whole or through a planned page', async () => {
    const created = await gql(
      `mutation($input: CreateVehicleInput!) { createVehicle(input: $input) { ...AllVehicle } } ${fragments.Vehicle}`,
      { input: { name: 'Select Mode Van', make: 'Ford', model: 'Transit', year: 2024, dailyRateCents: 7100, depositCents: 30000, includedMiles: 150, extraMileFeeCents: 40, features: ['bluetooth'], metadata: { fleet: 'north' } } },
    );
    expect(created.errors).toBeUndefined();
    const vehicle = created.data.createVehicle;
    const booking = await createBooking(api, vehicle.id, { customer: { name: 'Mode Tester', email: 'mode@example.com', phone: '+1 512 555 0199' } });
    await createVehicle(api, { name: 'Another vehicle on the page' });

    const whole = await gql(
      `query($v: ID!, $c: ID!, $b: ID!) {
        vehicle(id: $v) { ...AllVehicle }
        customer(id: $c) { ...AllCustomer }
        bookingPayment(bookingId: $b) { ...AllPayment }
      } ${fragments.Vehicle} ${fragments.Customer} ${fragments.Payment}`,
      { v: vehicle.id, c: booking.customer_id, b: booking.id },
    );
    expect(whole.errors).toBeUndefined();
    expect(whole.data.vehicle).toEqual(vehicle);
    expect(whole.data.vehicle).toMatchObject({ name: 'Select Mode Van', make: 'Ford', features: ['bluetooth'], metadata: { fleet: 'north' }, nextStates: ['archived'] });
    expect(whole.data.customer).toMatchObject({ id: booking.customer_id, name: 'Mode Tester', email: 'mode@example.com', phone: '+1 512 555 0199' });
    expect(whole.data.bookingPayment).toMatchObject({ bookingId: booking.id, amountCents: booking.total_cents });

    const planned = await gql(
      `query {
        vehicles(first: 10) { edges { node { ...AllVehicle } } }
        customers(first: 10) { edges { node { ...AllCustomer } } }
        bookings(first: 10) { edges { node { id vehicle { ...AllVehicle } customer { ...AllCustomer } payment { ...AllPayment } } } }
        narrow: bookings(first: 10) { edges { node { id vehicle { name } customer { email } payment { state nextStates } } } }
      } ${fragments.Vehicle} ${fragments.Customer} ${fragments.Payment}`,
    );
    expect(planned.errors).toBeUndefined();
    const node = <T extends { id: string }>(conn: { edges: { node: T }[] }, id: string) => conn.edges.map((e) => e.node).find((n) => n.id === id);
    expect(node(planned.data.vehicles, vehicle.id)).toEqual(whole.data.vehicle);
    expect(node(planned.data.customers, booking.customer_id)).toEqual(whole.data.customer);
    const viaBooking = node(planned.data.bookings, booking.id) as any;
    expect(viaBooking.vehicle).toEqual(whole.data.vehicle);
    expect(viaBooking.customer).toEqual(whole.data.customer);
    expect(viaBooking.payment).toEqual(whole.data.bookingPayment);
    expect(node(planned.data.narrow, booking.id)).toEqual({
      id: booking.id,
      vehicle: { name: 'Select Mode Van' },
      customer: { email: 'mode@example.com' },
      payment: { state: whole.data.bookingPayment.state, nextStates: whole.data.bookingPayment.nextStates },
    });

    // REST reads the same rows through the same fields.
    const rest = await api.get(`/v1/vehicles/${vehicle.id}`);
    expect(rest.body).toMatchObject({ id: vehicle.id, name: 'Select Mode Van', make: 'Ford', features: ['bluetooth'], metadata: { fleet: 'north' }, next_states: ['archived'] });
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ id: whole.data.bookingPayment.id, amount_cents: booking.total_cents });
  });

  it('reads the booking of a payment read whole (a relation of an unplanned row)', async () => {
    const vehicle = await createVehicle(api, { name: 'Relation Check' });
    const booking = await createBooking(api, vehicle.id);
    const res = await gql(`query($b: ID!) { bookingPayment(bookingId: $b) { id booking { id state vehicle { id name } } } }`, { b: booking.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.bookingPayment.booking).toEqual({ id: booking.id, state: booking.state, vehicle: { id: vehicle.id, name: 'Relation Check' } });
  });
});
