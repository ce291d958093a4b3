import { getOperationAST, GraphQLError, type ExecutionResult } from 'graphql';
import { createYoga, isAsyncIterable, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { schema } from '../schema/index.ts';
import type { GraphQLContext } from '../builder.ts';
import type { Principal } from '../domain/access/permissions.ts';
import type { DomainConfig } from '../domain/shared/context.ts';
import { DomainError } from '../domain/shared/errors.ts';
import { currentRequestId } from './request-scope.ts';
import { errorExtensions, internalError } from './error-envelope.ts';
import type { EventPubSub } from '../events/event-relay.ts';

/** What the edge hands to every operation, over HTTP, REST and WebSocket alike. */
export interface ServerContext {
  principal: Principal;
  requestId: string;
  idempotencyKey: string | null;
  /** Filled during execution; the edge writes the audit record from it after the response. */
  audit: AuditNote;
}

export interface AuditNote {
  write: boolean;
  operation: string | null;
  bookingId: string | null;
}

export function newAuditNote(): AuditNote {
  return { write: false, operation: null, bookingId: null };
}

/** Marks mutations for the audit log and remembers the booking they touched. */
function useAuditNote(): Plugin<ServerContext> {
  return {
    onExecute({ args }) {
      const audit = (args.contextValue as ServerContext).audit;
      const operation = getOperationAST(args.document, args.operationName);
      if (!audit || operation?.operation !== 'mutation') return;
      audit.write = true;
      const first = operation.selectionSet.selections[0];
      audit.operation = first?.kind === 'Field' ? first.name.value : null;
      return {
        onExecuteDone({ result }) {
          const data = (result as ExecutionResult).data as Record<string, { id?: unknown; bookingId?: unknown } | null> | undefined;
          const root = audit.operation && data ? data[audit.operation] : null;
          const variables = JSON.stringify(args.variableValues ?? {});
          audit.bookingId =
            (typeof root?.bookingId === 'string' && root.bookingId) ||
            (typeof root?.id === 'string' && root.id.startsWith('bk_') && root.id) ||
            /"(bk_[0-9a-z]{26})"/.exec(variables)?.[1] ||
            null;
        },
      };
    },
  };
}

/**
 * GraphQL's own errors (syntax, validation, a variable its type rejects) with the contract's
 * type and code, and every error with the request id. Domain errors already carry theirs
 * (maskError). Returns copies: yoga caches the errors of parsing and validation per document,
 * and each answer must name its own request.
 */
export function withContractExtensions(errors: readonly GraphQLError[], requestId = currentRequestId(), options: { dropHttp?: boolean } = {}): GraphQLError[] {
  return errors.map((error) => {
    const { http, ...rest } = error.extensions as Record<string, unknown>;
    const ext: Record<string, unknown> = options.dropHttp || http === undefined ? rest : { ...rest, http };
    if (!ext.type) {
      // A value of the wrong type, as a variable or a literal, is bad input (422 in REST).
      const inputProblem = /^Variable "\$|^Expected value of type|^Expected type|cannot represent|^Argument "\w+" of required type/.test(error.message);
      ext.type = inputProblem ? 'validation_error' : 'invalid_request';
      ext.code = inputProblem ? 'parameter_invalid' : 'graphql_validation_failed';
    }
    ext.request_id ??= requestId;
    return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions: ext });
  });
}

/** Every GraphQL error carries the contract's type, code and request_id in `extensions`. */
function useContractErrorExtensions(): Plugin {
  const fix = (r: ExecutionResult) => (r && typeof r === 'object' && r.errors?.length ? { ...r, errors: withContractExtensions(r.errors) } : r);
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map(fix));
      else if (!isAsyncIterable(result)) setResult(fix(result));
    },
  };
}

export function createGraphQLServer(deps: { prisma: PrismaClient; config: DomainConfig; pubsub: EventPubSub; now?: () => Date }): YogaServerInstance<ServerContext, GraphQLContext> {
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    context: ({ principal, requestId, idempotencyKey }) => ({
      domain: { prisma: deps.prisma, principal, requestId, idempotencyKey, config: deps.config, now: deps.now ?? (() => new Date()) },
      pubsub: deps.pubsub,
    }),
    maskedErrors: {
      maskError(error) {
        const original = error instanceof GraphQLError ? error.originalError : error;
        const requestId = currentRequestId();
        if (original instanceof DomainError) {
          const gql = error as GraphQLError;
          return new GraphQLError(original.message, { nodes: gql.nodes, path: gql.path, extensions: errorExtensions(original, requestId) });
        }
        // Errors of GraphQL itself (a variable its type rejects) are the caller's, not ours:
        // they pass, and withContractExtensions gives them their type and code.
        if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) return error;
        console.error(`[${requestId}]`, original);
        const internal = internalError();
        return new GraphQLError(internal.message, { extensions: errorExtensions(internal, requestId) });
      },
    },
    plugins: [useAuditNote(), useContractErrorExtensions()],
  });
}
