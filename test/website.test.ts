import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createVehicle, uploadedImage } from './support/fixtures.ts';

/*
 * The website, its branding and the public fleet through the public API: a business
 * configures and publishes its site with a secret key; a browser with the publishable key
 * sees only the published vehicles, and none of their internal fields.
 */

describe.each(ENGINES)('website, branding and the public fleet on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let browser: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    browser = restClient(t.baseUrl, t.business.test_public_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  it('publishes chosen vehicles: the publishable key lists and reads only those, without internal fields, and nothing while the site is unpublished', async () => {
    const shown = await createVehicle(api, { name: 'Shown Sedan', metadata: { fleet_ref: 'internal-7' }, location: { city: 'Austin', state: 'TX', lockbox: 'code 4411 behind the shed' }, access_method: 'lockbox' });
    const alsoShown = await createVehicle(api, { name: 'Shown SUV' });
    const hidden = await createVehicle(api, { name: 'Hidden Van' });

    const initial = await api.get('/v1/website');
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({
      object: 'website', id: expect.stringMatching(/^web_/), livemode: false, published: false, title: null, description: null,
      contact_email: null, contact_phone: null, published_vehicle_ids: [], allowed_origins: [], created_at: expect.any(String), updated_at: expect.any(String),
    });
    expect((await browser.get('/v1/public/vehicles')).body).toMatchObject({ object: 'list', data: [], has_more: false });

    const updated = await api.post('/v1/website', { title: 'Lone Star Rentals', contact_email: 'hello@lonestar.example', published_vehicle_ids: [shown.id, alsoShown.id] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: initial.body.id, published: false, title: 'Lone Star Rentals', published_vehicle_ids: [shown.id, alsoShown.id] });
    // Chosen but not yet published: still nothing.
    expect((await browser.get('/v1/public/vehicles')).body.data).toEqual([]);
    expect((await browser.get(`/v1/public/vehicles/${shown.id}`)).status).toBe(404);

    expect((await api.post('/v1/website', { published: true })).body).toMatchObject({ published: true, title: 'Lone Star Rentals' });
    const list = await browser.get('/v1/public/vehicles');
    expect(list.status).toBe(200);
    expect(list.body.data.map((v: any) => v.id)).toEqual([alsoShown.id, shown.id]);
    const one = await browser.get(`/v1/public/vehicles/${shown.id}`);
    expect(one.body).toEqual({
      object: 'public_vehicle', id: shown.id, livemode: false, name: 'Shown Sedan', make: null, model: null, year: null, currency: 'usd',
      daily_rate_cents: 4900, deposit_cents: 25000, included_miles: 200, extra_mile_fee_cents: 35, unlimited_miles_daily_cents: 1500,
      location: { city: 'Austin', state: 'TX' }, delivery_options: [], minimum_age: 21, photos: [], features: [], created_at: expect.any(String),
    });
    expect(JSON.stringify(list.body)).not.toMatch(/internal-7|lockbox|4411|metadata|access_method/);
    expect((await browser.get(`/v1/public/vehicles/${hidden.id}`)).body.error).toMatchObject({ code: 'resource_missing' });
    // Pages: newest first, one at a time.
    const first = (await browser.get('/v1/public/vehicles?limit=1')).body;
    expect(first).toMatchObject({ has_more: true, data: [{ id: alsoShown.id }] });
    expect((await browser.get(`/v1/public/vehicles?limit=1&starting_after=${alsoShown.id}`)).body).toMatchObject({ has_more: false, data: [{ id: shown.id }] });

    // The publishable key may read nothing else of the site; a live publishable key sees production's (unpublished) site.
    expect((await browser.get('/v1/website')).body.error).toMatchObject({ code: 'secret_key_required' });
    expect((await restClient(t.baseUrl, t.business.live_public_key).get('/v1/public/vehicles')).body.data).toEqual([]);
    expect((await restClient(t.baseUrl, t.other.test_public_key).get(`/v1/public/vehicles/${shown.id}`)).status).toBe(404);

    // A vehicle taken off the list leaves the fleet at once.
    await api.post('/v1/website', { published_vehicle_ids: [shown.id] });
    expect((await browser.get('/v1/public/vehicles')).body.data.map((v: any) => v.id)).toEqual([shown.id]);

    const events = (await api.get('/v1/events?type=website.updated')).body.data;
    expect(events).toHaveLength(3);
    expect(events[0].data.object).toMatchObject({ object: 'website', published: true, published_vehicle_ids: [shown.id] });

    for (const [body, param] of [
      [{ published_vehicle_ids: [shown.id, 'veh_missing'] }, 'published_vehicle_ids.1'],
      [{ published_vehicle_ids: [(await createVehicle(restClient(t.baseUrl, t.other.test_secret_key))).id] }, 'published_vehicle_ids.0'],
      [{ contact_email: 'nope' }, 'contact_email'],
      [{ title: '' }, 'title'],
      [{ published: 'yes' }, 'published'],
    ] as const) {
      const res = await api.post('/v1/website', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.param).toBe(param);
    }

    // GraphQL: the same site and fleet.
    const viaGql = await gql('mutation { updateWebsite(input: { title: null, contactPhone: "+1 512 555 0100" }) { title contactPhone published publishedVehicleIds } }');
    expect(viaGql.data.updateWebsite).toEqual({ title: null, contactPhone: '+1 512 555 0100', published: true, publishedVehicleIds: [shown.id] });
    const publicGql = graphqlClient(t.baseUrl, t.business.test_public_key);
    const fleet = await publicGql('{ publicVehicles(first: 5) { edges { node { id name location } } } }');
    expect(fleet.data.publicVehicles.edges).toEqual([{ node: { id: shown.id, name: 'Shown Sedan', location: { city: 'Austin', state: 'TX' } } }]);
    expect((await publicGql('query($id: ID!) { publicVehicle(id: $id) { name dailyRateCents } }', { id: shown.id })).data.publicVehicle).toEqual({ name: 'Shown Sedan', dailyRateCents: 4900 });
    const introspected = await gql('{ __type(name: "PublicVehicle") { fields { name } } }');
    expect(introspected.data.__type.fields.map((f: any) => f.name)).not.toEqual(expect.arrayContaining(['metadata']));
    expect(introspected.data.__type.fields.map((f: any) => f.name)).not.toContain('accessMethod');
    expect((await publicGql('{ website { title } }')).errors?.[0].extensions).toMatchObject({ code: 'secret_key_required' });
  });

  it('keeps the branding: hex colors, an uploaded image as the logo, a font; refuses what is not', async () => {
    const initial = await api.get('/v1/branding');
    expect(initial.body).toEqual({
      object: 'branding', id: expect.stringMatching(/^brd_/), livemode: false, primary_color: null, secondary_color: null, accent_color: null,
      logo_file_id: null, font: null, created_at: expect.any(String), updated_at: expect.any(String),
    });
    const logo = await uploadedImage(api, 'brand_logo');
    const updated = await api.post('/v1/branding', { primary_color: '#1A73E8', accent_color: '#f60', logo_file_id: logo, font: 'Open Sans' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ primary_color: '#1a73e8', secondary_color: null, accent_color: '#ff6600', logo_file_id: logo, font: 'Open Sans' });
    expect((await api.post('/v1/branding', { accent_color: null })).body).toMatchObject({ primary_color: '#1a73e8', accent_color: null, logo_file_id: logo });
    expect((await api.get('/v1/events?type=branding.updated')).body.data[0].data.object).toMatchObject({ object: 'branding', accent_color: null, logo_file_id: logo });

    const pdf = (await api.post('/v1/files/upload-url', { purpose: 'brand_logo', filename: 'logo.pdf', content_type: 'application/pdf', size_bytes: 10 })).body;
    expect((await fetch(pdf.upload_url, { method: 'PUT', body: new Uint8Array(Buffer.from('%PDF-1.4\n%')) })).status).toBe(200);
    for (const [body, code, param] of [
      [{ primary_color: 'blue' }, 'parameter_invalid', 'primary_color'],
      [{ primary_color: '#12345' }, 'parameter_invalid', 'primary_color'],
      [{ font: 'Comic Sans; drop table' }, 'parameter_invalid', 'font'],
      [{ logo_file_id: 'file_missing' }, 'file_not_usable', 'logo_file_id'],
      [{ logo_file_id: pdf.id }, 'file_not_usable', 'logo_file_id'],
    ] as const) {
      const res = await api.post('/v1/branding', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatchObject({ code, param });
    }
    expect((await api.post('/v1/branding', { logo_file_id: pdf.id })).body.error.message).toMatch(/application\/pdf, not a JPEG, PNG or WebP image/);
    const viaGql = await gql('mutation { updateBranding(input: { secondaryColor: "#000" }) { primaryColor secondaryColor font } }');
    expect(viaGql.data.updateBranding).toEqual({ primaryColor: '#1a73e8', secondaryColor: '#000000', font: 'Open Sans' });
    expect((await gql('{ branding { logoFileId } }')).data.branding.logoFileId).toBe(logo);
  });
});
