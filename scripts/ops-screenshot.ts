// docs/ops-board.png: the ops screen over demo-like data, in Debian's Chromium.
// `npx tsx scripts/ops-screenshot.ts` (needs /usr/bin/chromium; the data lives in memory only).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOps } from './build-ops.mjs';
import { createSignInLink } from '../src/ops/sessions.ts';
import { addTeamMember } from '../src/platform/team-members.ts';
import { restClient, startTestApp } from '../test/support/app.ts';
import { launchBrowser } from '../test/support/browser.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs', 'ops-board.png');

await buildOps();
const t = await startTestApp('pglite');
// Nothing listens there: every delivery to it fails.
const failingUrl = 'http://127.0.0.1:9/hooks';
const browser = await launchBrowser();
try {
  await t.db.prisma.business.update({ where: { id: t.business.business_id }, data: { name: 'Harbor Car Rentals' } });
  const member = (await addTeamMember(t.db.prisma, { businessId: t.business.business_id, email: 'olivia@harbor.example', name: 'Olivia Martin', role: 'manager' }))!;
  const api = restClient(t.baseUrl, t.business.test_secret_key);
  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const res = await p;
    if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const endpoint = await ok(api.post('/v1/developers/webhooks', { url: failingUrl, enabled_events: ['booking.created', 'booking.canceled'], description: 'CRM sync' }));
  await ok(api.post('/v1/developers/webhooks', { url: 'https://example.com/never-called', enabled_events: ['vehicle.archived'], description: 'Accounting' }));

  const names = ['Toyota Corolla', 'Mazda CX-5', 'Tesla Model 3', 'Ford Transit', 'Kia Niro', 'VW Golf', 'Jeep Wrangler', 'Honda Civic'];
  const vehicles: string[] = [];
  for (const name of names) vehicles.push((await ok(api.post('/v1/vehicles', { name, daily_rate_cents: 4900 + vehicles.length * 700, deposit_cents: 25000, included_miles: 200, extra_mile_fee_cents: 35 }))).id);
  const customers = [['Ada Lovelace', 'ada'], ['Grace Hopper', 'grace'], ['Alan Turing', 'alan'], ['Katherine Johnson', 'katherine'], ['Linus Pauling', 'linus'], ['Mary Jackson', 'mary']];
  const at = (hours: number) => {
    const d = new Date(Date.now() + hours * 3_600_000);
    d.setUTCMinutes(hours % 1 === 0 ? 0 : 30, 0, 0);
    return d.toISOString();
  };
  let n = 0;
  const book = async (vehicle: string, startHours: number, endHours: number) => {
    const [name, email] = customers[n++ % customers.length];
    return (await ok(api.post('/v1/bookings', { vehicle_id: vehicle, start_at: at(startHours), end_at: at(endHours), customer: { name, email: `${email}@example.com`, phone: '+1 512 555 0100' } }))).id as string;
  };
  const ready = async (id: string) => {
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign']) await ok(api.post(`/v1/test/bookings/${id}/${step}`));
    await ok(api.post(`/v1/bookings/${id}/deposit`));
  };

  // Pickups today, one paid and waiting, one still unpaid.
  await ready(await book(vehicles[0], 1.5, 26));
  await ok(api.post(`/v1/test/bookings/${await book(vehicles[1], 3, 50)}/payment/succeed`));
  // Rentals on the road, one due back today, one late.
  const onRoad = await book(vehicles[2], 0.5, 6);
  await ready(onRoad);
  await ok(api.post(`/v1/test/bookings/${onRoad}/pickup`, { mileage_out: 12040 }));
  const late = await book(vehicles[3], 0.5, 30);
  await ready(late);
  await ok(api.post(`/v1/test/bookings/${late}/pickup`, { mileage_out: 5100 }));
  await ok(api.post(`/v1/test/bookings/${late}/make-late`));
  // A returned rental whose mileage charge is disputed.
  const returned = await book(vehicles[4], 0.5, 28);
  await ready(returned);
  await ok(api.post(`/v1/test/bookings/${returned}/pickup`, { mileage_out: 1000 }));
  const back = await ok(api.post(`/v1/test/bookings/${returned}/return`, { mileage_in: 1900 }));
  await ok(api.post(`/v1/test/charges/${back.charge_ids[0]}/dispute`, { reason: 'never drove that far' }));
  // Later bookings, and a canceled one.
  for (const [v, s] of [[5, 72], [6, 120], [7, 200], [0, 300]] as const) await ok(api.post(`/v1/test/bookings/${await book(vehicles[v], s, s + 48)}/payment/succeed`));
  await book(vehicles[1], 400, 448);
  await ok(api.post(`/v1/bookings/${await book(vehicles[2], 500, 548)}/cancel`, {}));
  // A booking in problem: its payment fails after it was booked, if the sandbox allows it; else left out.
  const problem = await book(vehicles[5], 600, 648);
  await api.post(`/v1/test/bookings/${problem}/payment/succeed`);
  await api.post(`/v1/test/bookings/${problem}/identity/fail`);
  while ((await ok(api.get(`/v1/developers/webhooks/${endpoint.id}/deliveries`))).data.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));

  const link = await createSignInLink(t.db.prisma, { businessId: t.business.business_id, memberId: member.id, livemode: false });
  const page = await browser.browser.newPage({ viewport: { width: 1360, height: 1000 }, deviceScaleFactor: 1 });
  await page.goto(`${t.baseUrl}/ops/sign-in#token=${link.token}`);
  await page.getByTestId('live-status').getByText('Live').waitFor();
  await page.getByTestId('webhooks').getByText(failingUrl).waitFor({ timeout: 20_000 });
  // One more event while watching: it arrives live.
  await ok(api.post(`/v1/test/bookings/${await book(vehicles[6], 700, 748)}/payment/succeed`));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${path.relative(root, out)}`);
} finally {
  await browser.close();
  await t.close();
}
