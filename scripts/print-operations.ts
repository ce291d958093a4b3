import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileRoutes } from '../rest-adapter/adapter.ts';
import { isHandlerRoute } from '../rest-adapter/route.ts';
import { routeGroups } from '../rest-adapter/routes/index.ts';
import type { OperationAccess } from '../src/domain/access/permissions.ts';
import { schema } from '../src/schema/index.ts';

/*
 * docs/operations.md, generated from the route table (rest-adapter/routes/) and each route's
 * operation declaration (defineOperation): `npm run docs:operations` writes it, and
 * test/operations-doc.test.ts fails while the file differs from what this prints.
 */

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Which keys may call an operation at all (the permission comes on top, for secret keys). */
export function keyKinds(access: OperationAccess): string {
  if (access.sandbox) return 'test secret only';
  if (access.browser && 'create' in access.browser) return 'secret, publishable (browser booking)';
  if (access.browser) return 'secret, publishable with the booking\'s client_secret';
  return access.publishable ? 'secret, publishable' : 'secret';
}

const INTRO = [
  '# Operations',
  '',
  'Every REST route under `/v1` runs the GraphQL field beside it, behind the same edge (keys,',
  'limits, access, idempotency, audit), so both answer alike. The permission is what a restricted',
  'or team-bound secret key needs (see [Team and permissions](keys-and-permissions.md#team-and-permissions));',
  'an unrestricted secret key has every permission. The keys column says which keys may call the',
  'operation at all: secret keys; publishable keys (`svc_*_pk_`) too; or, for the sandbox\'s',
  'simulations, test secret keys only (a live key gets 403 `sandbox_only`). A publishable key',
  'calling anything else gets 403 `secret_key_required` ([keys and environments](conventions.md#keys-and-environments)).',
  'The browser booking of the [embedded components](embedding.md): a publishable key creates a booking of a',
  'vehicle of the published website, then, with that booking\'s `client_secret`, reads it and starts its checkout.',
  '',
  'The stage is the specification\'s: the first public release, or later scope. No operation is',
  '"released" yet: the OpenAPI document (`GET /v1/openapi.json`) lists every route with its GraphQL',
  'twin and marks each with its `x-release-stage` and `x-released: false`',
  '([the OpenAPI document](openapi.md)). [`endpoints.md`](endpoints.md) lists every operation of',
  'the specification\'s endpoint tables with the method it is answered on; `test/endpoints.test.ts`',
  'fails on any without a route.',
  '',
  'This file is generated from the route table (`rest-adapter/routes/`, one file per API group)',
  'and each operation\'s declaration (`defineOperation`) by `npm run docs:operations`; a test',
  'fails while it is out of date.',
];

const WITHOUT_A_KEY = [
  '## Links and pages without an API key',
  '',
  '| Request | What it is |',
  '|---|---|',
  '| `PUT <upload_url>` (`/v1/files/{file_id}/upload?...`) | The bytes of a file registered with `POST /v1/files/upload-url`; the link\'s signature is the authorization (15 minutes) ([Files](files-and-identity.md#files-and-evidence)) |',
  '| `GET <download_url>` (`/v1/files/{file_id}/download?...`) | A file\'s bytes, from `GET /v1/files/{file_id}` (5 minutes) |',
  '| `GET` and `POST <signing_url>` (`/v1/agreements/{agreement_id}/sign?...`) | The customer\'s signing link of a rental agreement (see [Rental agreement](agreements.md)) |',
  '| `POST <accept_url>` (`/v1/team/invitations/{invitation_id}/accept?token=...`) | An invitee joins the team (see [Team and permissions](keys-and-permissions.md#team-and-permissions)) |',
  '| `POST /v1/processor/stripe/webhook` | Stripe\'s events, verified by their `Stripe-Signature` (see [Payments through Stripe](payments.md#payments-through-stripe)) |',
  '| `GET /v1/openapi.json`, `GET /docs` | The OpenAPI document and the API reference rendered from it |',
  '| `GET /health/live`, `GET /health/ready` | Health (see [Running it in production](production.md)) |',
  '| `GET /metrics` | Prometheus metrics, for loopback callers or `METRICS_TOKEN` (see [Logs and metrics](observability.md#metrics)) |',
  '| `/graphql` | GraphQL (with a key; subscriptions over WebSocket or SSE); opened in a browser, GraphiQL |',
  '| `/ops` | The ops screen, for staff signed in as team members (see [Ops screen](ops-screen.md)) |',
  '| `GET /embed/v1/components.js` | The embedded booking components, one ES module (CORS `*`); `GET /embed/v1/theme` with a publishable key gives them the branding and, live, the settings of the processor payment form (see [Embedding](embedding.md)) |',
  '| `GET` and `POST <checkout url>` (`/checkout/{booking_id}?payment&expires&signature`) | A checkout\'s hosted payment page; in the sandbox its test card form (Pay, Decline) drives the sandbox processor (see [Embedding](embedding.md#security-model)) |',
];

/** docs/operations.md: every route by API group, with what its operation declares. */
export function operationsReference(): string {
  const groups = routeGroups.flatMap((group) => [
    `## ${group.tag[0].toUpperCase()}${group.tag.slice(1)}`,
    '',
    group.description,
    '',
    '| REST | GraphQL | Summary | Permission | Keys | Stage |',
    '|---|---|---|---|---|---|',
    ...compileRoutes(schema, group.routes).map(({ route, operation }) => {
      const field = isHandlerRoute(route) ? operation!.name : route.field.split('.')[1];
      const { access } = operation!;
      const permission = access.permission ? `\`${access.permission}\`` : 'none';
      const stage = route.stage === 'first_release' ? 'first release' : 'later scope';
      return `| ${route.method} ${route.path} | \`${field}\` | ${cell(operation!.summary)} | ${permission} | ${keyKinds(access)} | ${stage} |`;
    }),
    '',
  ]);
  return [...INTRO, '', ...groups, ...WITHOUT_A_KEY, ''].join('\n');
}

const target = fileURLToPath(new URL('../docs/operations.md', import.meta.url));
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(target, operationsReference());
  console.log('wrote docs/operations.md');
}
