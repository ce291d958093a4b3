import { GraphQLError, Kind } from 'graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { builder } from '../builder.ts';
import { timestamp } from '../domain/shared/validation.ts';

function parseTimestamp(value: unknown): Date {
  const parsed = timestamp.safeParse(value);
  if (!parsed.success || typeof value !== 'string') {
    throw new GraphQLError('expected an ISO 8601 timestamp with a UTC offset, e.g. 2026-12-01T10:00:00Z', {
      extensions: { type: 'validation_error', code: 'parameter_invalid', status: 422 },
    });
  }
  return parsed.data;
}

builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp with a UTC offset; always answered in UTC (Z).',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: parseTimestamp,
  parseLiteral: (ast) => parseTimestamp(ast.kind === Kind.STRING ? ast.value : undefined),
});

builder.addScalarType('JSON', GraphQLJSON);
