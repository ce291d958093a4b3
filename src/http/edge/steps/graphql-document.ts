import {
  getNamedType, getOperationAST, isObjectType, Kind, Lexer, parse, Source, TokenKind,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import type { Operation } from '../../../domain/shared/operation.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { MAX_NESTING } from '../../input-safety.ts';
import type { EdgeContext, EdgeStep } from '../runner.ts';

/**
 * GraphQL's limits on a document (graphql-armor checks depth, aliases, cost and directives when
 * it validates). The cost of a list field is multiplied by a literal `first`/`last`: a page of
 * 100 bookings with their vehicle, customer and payment costs about 8,000, and must be allowed.
 */
export const GRAPHQL_LIMITS = { maxDepth: 10, maxAliases: 15, maxCost: 25_000, maxTokens: 2_000, maxDirectives: 20 } as const;

/**
 * How deep brackets, braces and parentheses may nest in a document: the deepest selection set
 * allowed, its arguments, and the deepest input value allowed inside them. graphql-js parses
 * recursively, so a document nested far deeper (a list value 20,000 levels deep) would
 * overflow the stack: it is refused before parsing, from the lexer's tokens (which it reads
 * one at a time, without recursion).
 */
export const MAX_DOCUMENT_NESTING = GRAPHQL_LIMITS.maxDepth + MAX_NESTING + 4;

const OPENING = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** Refuse a document nested deeper than MAX_DOCUMENT_NESTING; a document the lexer cannot read is left to the parser to report. */
function checkNesting(query: string): void {
  const lexer = new Lexer(new Source(query));
  let depth = 0;
  try {
    // No more tokens than the parser reads: past them it stops with its own error.
    for (let tokens = 0; tokens <= GRAPHQL_LIMITS.maxTokens; tokens++) {
      const token = lexer.advance();
      if (token.kind === TokenKind.EOF) return;
      if (OPENING.has(token.kind) && ++depth > MAX_DOCUMENT_NESTING) throw EdgeErrors.queryTooDeep(`The GraphQL document nests brackets, braces or parentheses more than ${MAX_DOCUMENT_NESTING} levels deep.`);
      if (CLOSING.has(token.kind)) depth--;
    }
  } catch (err) {
    if (err instanceof Error && err.name === 'GraphQLError') return;
    throw err;
  }
}

/**
 * The root fields an operation runs, by response key (an alias, else the name): those written
 * at its root and those its fragments there bring (inline, or spread), as GraphQL's
 * execution collects them. A fragment at the root runs its fields as surely as a field
 * written there, so every rule on the operations sees them.
 */
export function rootFields(document: DocumentNode, selectionSet: SelectionSetNode, into = new Map<string, FieldNode>(), spread = new Set<string>()): Map<string, FieldNode> {
  for (const s of selectionSet.selections) {
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      if (!into.has(key)) into.set(key, s);
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      rootFields(document, s.selectionSet, into, spread);
    } else if (!spread.has(s.name.value)) {
      spread.add(s.name.value);
      const fragment = document.definitions.find((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value);
      if (fragment) rootFields(document, fragment.selectionSet, into, spread);
    }
  }
  return into;
}

/** The domain operations a GraphQL operation calls at its root: one per root field that runs (a field under two aliases runs twice). */
function rootOperations(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Operation[] {
  const root = schema.getRootType(operation.operation);
  if (!root || !isObjectType(getNamedType(root))) return [];
  const fields = root.getFields();
  return [...rootFields(document, operation.selectionSet).values()].flatMap((s) => {
    const op = fields[s.name.value]?.extensions?.operation as Operation | undefined;
    return op ? [op] : [];
  });
}

/** The document, parsed within the token limit; null when it does not parse (its transport reports GraphQL's own error). */
function parsed(query: string): DocumentNode | null {
  try {
    return parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
  } catch {
    return null;
  }
}

/**
 * A GraphQL request's operation, once its parameters are known: its document parsed (after
 * the nesting check), the operation it runs, the domain operations its root fields call and,
 * for a mutation, its audit record. Mutations go over HTTP only, where Idempotency-Key and
 * the audit record apply. A document that does not parse or names no operation goes on
 * unchanged: GraphQL's own parse and validation answer it.
 */
export function graphqlDocumentStep(schema: GraphQLSchema): EdgeStep {
  return {
    name: 'graphql-document',
    run(ctx: EdgeContext) {
      const graphql = ctx.graphql;
      if (ctx.kind !== 'graphql' || !graphql || typeof graphql.params.query !== 'string') return;
      checkNesting(graphql.params.query);
      const document = parsed(graphql.params.query);
      if (!document) return;
      graphql.document = document;
      const operation = getOperationAST(document, graphql.params.operationName);
      ctx.operationLabel = operation ? `${operation.operation} ${operation.name?.value ?? 'anonymous'}` : 'unknown';
      if (!operation) return;
      // A refusal of the request, not of its operation (refusesOperation): the operation is not known yet.
      if (operation.operation === 'mutation' && ctx.transport === 'websocket') throw EdgeErrors.methodNotAllowed('Mutations are not allowed over the WebSocket; send them with POST /graphql.');
      graphql.operation = operation;
      ctx.operations = rootOperations(schema, document, operation);
      if (operation.operation !== 'mutation') return;
      const first = rootFields(document, operation.selectionSet).values().next().value;
      ctx.audit.write = true;
      ctx.audit.operation ??= first?.name.value ?? null;
    },
  };
}
