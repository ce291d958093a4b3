import { EnvelopArmor } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';
import type { EdgePlugin } from './context.ts';

/**
 * GraphQL's limits, by graphql-armor: depth, aliases, cost, tokens and directives. One
 * request of 500 aliases over a 100-item list would otherwise hold the server for seconds.
 * Each refusal carries its contract code (answered as 400 invalid_request).
 */
// The cost of a list field is multiplied by a literal `first`/`last`: a page of 100 bookings
// with their vehicle, customer and payment costs about 8,000, and must be allowed.
export const GRAPHQL_LIMITS = { maxDepth: 10, maxAliases: 15, maxCost: 25_000, maxTokens: 2_000, maxDirectives: 20 } as const;

const stamp = (code: string) => [(_ctx: unknown, error: GraphQLError) => void Object.assign(error.extensions as object, { code })];

export function useArmor(): EdgePlugin[] {
  const armor = new EnvelopArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true, onReject: stamp('query_too_deep') },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases, onReject: stamp('too_many_aliases') },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ignoreIntrospection: true, onReject: stamp('query_too_costly') },
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens, onReject: stamp('document_too_large') },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, onReject: stamp('document_too_large') },
    // Suggestions name fields; they are the docs' job, and harmless: keep them.
    blockFieldSuggestion: { enabled: false },
  });
  return armor.protect().plugins as EdgePlugin[];
}
