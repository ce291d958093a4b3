import { describe, expect, it } from 'vitest';
import { localChecker } from './support/openapi-check.ts';

type Json = Record<string, any>;

/**
 * Every example of the OpenAPI document, against its own schema (Ajv, as the answer checker
 * validates real answers): each operation's request body example (every POST has a body, an
 * empty object for an action that takes no fields), its success answer's example, the example
 * of an error answer it always gives, and its parameters' examples. A missing or invalid
 * example fails naming its operation.
 */
describe('the examples of the OpenAPI document', () => {
  const checker = localChecker();
  const doc = checker.doc as unknown as Json;
  const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ where: `${(op as Json).operationId} (${method.toUpperCase()} ${path})`, method, op: op as Json })),
  );

  /** What is wrong with an example against its schema, or null. */
  const problem = (key: string, schema: Json, example: unknown): string | null => {
    const validate = checker.validator(`example ${key}`, schema);
    if (validate(example)) return null;
    return (validate.errors ?? [])
      .slice(0, 4)
      .map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`)
      .join('; ');
  };

  it('covers every operation of the route table', () => {
    expect(operations.length).toBeGreaterThan(100);
  });

  it('gives every POST a request body with an example that matches its schema', () => {
    const problems: string[] = [];
    for (const { where, method, op } of operations) {
      const body = op.requestBody?.content?.['application/json'];
      if (method === 'post' && !body) problems.push(`${where}: no JSON request body`);
      if (!body) continue;
      if (body.example === undefined) problems.push(`${where}: no request example`);
      else {
        const why = problem(`${where} request`, body.schema, body.example);
        if (why) problems.push(`${where}: the request example does not match its schema: ${why}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every success answer an example that matches its schema (every media type)', () => {
    const problems: string[] = [];
    for (const { where, op } of operations) {
      const success = Object.entries(op.responses as Record<string, Json>).filter(([status]) => status.startsWith('2'));
      if (!success.length) {
        // An operation that always answers an error (the sandbox's declined payment) shows that error.
        const errors = Object.entries(op.responses as Record<string, Json>).filter(([, r]) => r.content?.['application/json']?.example !== undefined);
        if (!errors.length) problems.push(`${where}: no success answer and no error example`);
        for (const [status, response] of errors) {
          const example = response.content['application/json'].example;
          const why = problem(`${where} ${status}`, response.content['application/json'].schema, example);
          if (why) problems.push(`${where}: the ${status} example does not match its schema: ${why}`);
          if (!response['x-error-codes']?.includes(example.error?.code)) problems.push(`${where}: the ${status} example's code ${example.error?.code} is not one the answer lists`);
        }
        continue;
      }
      for (const [status, response] of success) {
        for (const [media, content] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          if (content.example === undefined) {
            problems.push(`${where}: no ${status} ${media} example`);
            continue;
          }
          if (media === 'application/json') {
            const why = problem(`${where} ${status}`, content.schema, content.example);
            if (why) problems.push(`${where}: the ${status} example does not match its schema: ${why}`);
          } else if (typeof content.example !== 'string') problems.push(`${where}: the ${status} ${media} example is not text`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("gives every parameter with an example one that matches the parameter's schema", () => {
    const problems: string[] = [];
    for (const { where, op } of operations) {
      for (const p of (op.parameters ?? []) as Json[]) {
        if (p.example === undefined) continue;
        // A query parameter travels as text: a number or a boolean is its JSON value's text.
        const why = problem(`${where} ${p.in} ${p.name}`, p.schema, p.example);
        if (why) problems.push(`${where}: the example of ${p.in} parameter ${p.name} (${JSON.stringify(p.example)}) does not match its schema: ${why}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists every detail field of the error catalogue in the error envelope (the checker refuses a field it does not list)', async () => {
    const { loadCatalogues } = await import('../scripts/error-reference.ts');
    const listed = Object.keys(doc.components.schemas.Error.properties.error.properties);
    const missing = (await loadCatalogues()).flatMap((d) => d.details.filter((field) => !listed.includes(field)).map((field) => `${d.code}: ${field}`));
    expect(missing).toEqual([]);
  });

  it('the check fails on a wrong example, naming it', () => {
    expect(problem('probe', { $ref: '#/components/schemas/Booking' }, { object: 'booking' })).toMatch(/must have required property 'id'/);
    expect(problem('probe-empty', { type: 'object', additionalProperties: false }, { reason: 'x' })).toMatch(/must NOT have additional properties/);
    // A field the document does not list is refused, though the document leaves its objects open to new fields.
    const vehicle = doc.paths['/v1/vehicles/{vehicle_id}'].get.responses['200'].content['application/json'].example;
    expect(problem('probe-extra', { $ref: '#/components/schemas/Vehicle' }, { ...vehicle, color: 'red' })).toMatch(/must NOT have additional properties/);
  });
});
