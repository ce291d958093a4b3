import { GraphQLError, Kind } from 'graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { builder } from '../builder.ts';
import { isoTime } from './iso-time.ts';

/**
 * DateTime inputs stay strings here: the operation's declaration parses them (one strict
 * reader, src/domain/shared/validation.ts `timestamp`), so GraphQL and REST refuse the same
 * values with the same message.
 */
function asString(value: unknown): string {
  if (typeof value !== 'string') {
    throw new GraphQLError('expected an ISO 8601 timestamp with a UTC offset, e.g. 2026-12-01T10:00:00Z', {
      extensions: { type: 'validation_error', code: 'parameter_invalid', status: 422 },
    });
  }
  return value;
}

builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp with a UTC offset; always answered in UTC (Z).',
  serialize: (value) => (value instanceof Date ? isoTime(value) : String(value)),
  parseValue: asString,
  parseLiteral: (ast) => asString(ast.kind === Kind.STRING ? ast.value : undefined),
});

builder.addScalarType('JSON', GraphQLJSON);
