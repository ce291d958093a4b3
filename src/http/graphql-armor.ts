import { EnvelopArmor } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { GRAPHQL_LIMITS } from './edge/steps/graphql-document.ts';

/**
 * GraphQL's limits, by graphql-armor: depth, aliases, cost, tokens and directives. One
 * request of 500 aliases over a 100-item list would otherwise hold the server for seconds.
 * Each refusal carries its contract code (answered as 400 invalid_request). The edge parses
 * the document first, within the same token limit (src/http/edge/steps/graphql-document.ts);
 * armor's token limit answers a document the edge left to GraphQL's own parser.
 */
const stamp = (code: string) => [(_ctx: unknown, error: GraphQLError) => void Object.assign(error.extensions as object, { code })];

export function useArmor(): Plugin[] {
  const armor = new EnvelopArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true, onReject: stamp('query_too_deep') },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases, onReject: stamp('too_many_aliases') },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ignoreIntrospection: true, onReject: stamp('query_too_costly') },
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens, onReject: stamp('document_too_large') },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, onReject: stamp('document_too_large') },
    // Suggestions name fields; they are the docs' job, and harmless: keep them.
    blockFieldSuggestion: { enabled: false },
  });
  return armor.protect().plugins as Plugin[];
}
