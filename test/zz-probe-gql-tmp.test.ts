import { it } from 'vitest';
import { startTestApp, graphqlClient } from '/work/main/test/support/app.ts';
it('probe', async () => {
  const t = await startTestApp('pglite');
  const r1 = await fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ vehicles { edges { cursor } } }' }) });
  console.log(r1.status, [...r1.headers], await r1.text());
  const r2 = await fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer svc_test_sk_' + 'a'.repeat(40) }, body: JSON.stringify({ query: '{ vehicles { edges { cursor } } }' }) });
  console.log(r2.status, await r2.text());
  const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  for (const q of ['{ vehicles(first: 0) { edges { cursor } } }', '{ vehicles(first: 101) { edges { cursor } } }', '{ vehicles(last: 3) { edges { cursor } } }']) {
    const r = await gql(q); console.log(r.status, JSON.stringify({ data: r.data, errors: r.errors }));
  }
  const r = await gql('query($s: DateTime!, $e: DateTime!) { availability(startAt: $s, endAt: $e) { edges { cursor } } }', { s: '2030-01-01T10:00:00', e: '2030-01-02T10:00:00Z' });
  console.log(r.status, JSON.stringify({ data: r.data, errors: r.errors }), r.headers.get('request-id'));
  await t.close();
});
