// The published contract's breaking-change gate: the OpenAPI document and the GraphQL schema
// of the last released version are kept in contract/ (`npm run contract:snapshot` writes them
// at a release); test/contract-gate.test.ts compares the current ones against them with
// maintained differs (api-smart-diff for OpenAPI 3.1, @graphql-inspector/core for GraphQL)
// and fails on a breaking change that CHANGELOG.md does not list under a newer version.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CriticalityLevel, diff as graphqlDiff } from '@graphql-inspector/core';
import { apiDiff, breaking } from 'api-smart-diff';
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { compileRoutes } from '../rest-adapter/adapter.ts';
import { openApiDocument } from '../rest-adapter/openapi.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { projectRoot } from '../src/project-root.ts';
import { schema } from '../src/schema/index.ts';

export const contractDir = path.join(projectRoot, 'contract');
export const changelogPath = path.join(projectRoot, 'CHANGELOG.md');

export interface Contract {
  /** The version the snapshot was taken at (CHANGELOG.md's heading). */
  version: string;
  openapi: object;
  graphql: string;
}

/** A breaking change, named as CHANGELOG.md must name it to allow it. */
export interface BreakingChange {
  surface: 'REST' | 'GraphQL';
  /** `GET /v1/vehicles/{vehicle_id}`, `POST /v1/bookings requestBody...`, `Booking.state`. */
  id: string;
  description: string;
}

export function currentContract(version: string): Contract {
  return { version, openapi: openApiDocument(compileRoutes(schema, routes)), graphql: printSchema(lexicographicSortSchema(schema)) };
}

export function snapshotContract(): Contract {
  return {
    version: readFileSync(path.join(contractDir, 'version'), 'utf8').trim(),
    openapi: JSON.parse(readFileSync(path.join(contractDir, 'openapi.json'), 'utf8')),
    graphql: readFileSync(path.join(contractDir, 'schema.graphql'), 'utf8'),
  };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Every change between two contracts that a client built against the first could break on. */
export async function breakingChanges(before: Contract, after: Contract): Promise<BreakingChange[]> {
  // The OpenAPI differ takes seconds on the whole document; an unchanged one has nothing to find.
  const restChanged = JSON.stringify(before.openapi) !== JSON.stringify(after.openapi);
  const inputs = restChanged ? inputComponents(after.openapi) : new Set<string>();
  const rest = (restChanged ? apiDiff(before.openapi, after.openapi) : [])
    .filter((d) => (d.type === breaking && !answerOnlyAddition(d, inputs) && !answerOnlyNarrowing(d, inputs)) || sentFieldRemoval(d, inputs))
    .map((d): BreakingChange => {
      const [root, route, method, ...rest] = d.path.map(String);
      const id =
        root === 'paths' && route && METHODS.has(method ?? '')
          ? `${method.toUpperCase()} ${route}${rest.length ? ` ${rest.join('.')}` : ''}`
          : d.path.map(String).join('.');
      return { surface: 'REST', id, description: `${d.action} ${id}${d.description ? `: ${d.description}` : ''}` };
    });
  const graphql = (before.graphql === after.graphql ? [] : await graphqlDiff(buildSchema(before.graphql), buildSchema(after.graphql)))
    .filter((c) => c.criticality.level === CriticalityLevel.Breaking)
    .map((c): BreakingChange => ({ surface: 'GraphQL', id: c.path ?? c.type, description: c.message }));
  return [...rest, ...graphql];
}

/**
 * The differ judges a shared schema (`components.schemas.X`) without knowing where it is used,
 * so a field added to an object (and listed in its `required`, as every field the service
 * always sends is) counts as a new required input. It is one only for a schema a client sends:
 * in a request body or a parameter, directly or through other schemas. A schema only answered
 * (a 2xx body, a webhook's event: what the service sends) may gain fields.
 */
function answerOnlyAddition(d: { action: string; path: readonly unknown[] }, inputs: Set<string>): boolean {
  const [root, group, name] = d.path.map(String);
  if (root !== 'components' || group !== 'schemas' || inputs.has(name) || d.action !== 'add') return false;
  const inner = d.path.slice(3).map(String);
  // A new property, or a new entry of a `required` list: the object gained a field.
  return inner.at(-2) === 'properties' || inner.at(-2) === 'required';
}

/**
 * For the same reason, a field of a schema only answered that may be null, narrowed to never
 * null (the `null` branch of its `anyOf`/`oneOf`, or `null` among its `type`s, removed), counts
 * as breaking at the component, where the differ does not know who reads it. The differ itself
 * judges the same change compatible in every answer that uses the schema (a client ready for
 * null reads a value), and graphql-inspector does for `String` to `String!` on an output
 * type. In a schema a client sends, it stays breaking: a client sending null is refused.
 */
function answerOnlyNarrowing(d: { action: string; path: readonly unknown[]; before?: unknown }, inputs: Set<string>): boolean {
  const [root, group, name] = d.path.map(String);
  if (root !== 'components' || group !== 'schemas' || inputs.has(name) || d.action !== 'remove') return false;
  const where = d.path.map(String).at(-2);
  const before = d.before as { type?: unknown } | string | undefined;
  if (where === 'anyOf' || where === 'oneOf') return typeof before === 'object' && before !== null && before.type === 'null' && Object.keys(before).every((k) => k === 'type' || k === 'description');
  return where === 'type' && before === 'null';
}

/**
 * A property removed from a schema a client sends is breaking here, whatever the differ says
 * (it takes an optional one as compatible, as for servers that ignore unknown fields): this
 * service refuses a field it does not know (422 parameter_unknown), so a client still sending it
 * would be refused.
 */
function sentFieldRemoval(d: { action: string; path: readonly unknown[] }, inputs: Set<string>): boolean {
  const [root, group, name] = d.path.map(String);
  return root === 'components' && group === 'schemas' && inputs.has(name) && d.action === 'remove' && d.path.map(String).at(-2) === 'properties';
}

/** The names of the component schemas a client sends: reachable from a path's request body or parameters. */
function inputComponents(openapi: object): Set<string> {
  const doc = openapi as { paths?: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown }>>; components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas ?? {};
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!found.has(name)) (found.add(name), visit(schemas[name]));
      } else visit(value);
    }
  };
  for (const methods of Object.values(doc.paths ?? {})) for (const op of Object.values(methods)) if (op && typeof op === 'object') (visit(op.requestBody), visit(op.parameters));
  return found;
}

/**
 * The changes CHANGELOG.md allows after `version`: every `code span` of the bullets under a
 * version heading (`## 1.1.0 — 2026-12-01`) newer than it.
 */
export function allowedChanges(changelog: string, version: string): Set<string> {
  const allowed = new Set<string>();
  let current: string | null = null;
  for (const line of changelog.split('\n')) {
    const heading = /^## (\d+\.\d+\.\d+)\b/.exec(line);
    if (heading) current = heading[1];
    else if (/^## /.test(line)) current = null;
    else if (current && newer(current, version) && /^\s*[-*] /.test(line)) for (const m of line.matchAll(/`([^`]+)`/g)) allowed.add(m[1]);
  }
  return allowed;
}

/** The newest version heading of CHANGELOG.md. */
export function newestVersion(changelog: string): string {
  const m = /^## (\d+\.\d+\.\d+)\b/m.exec(changelog);
  if (!m) throw new Error('CHANGELOG.md has no version heading (## 1.0.0 — date)');
  return m[1];
}

function newer(a: string, b: string): boolean {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] > pb[i];
  return false;
}
