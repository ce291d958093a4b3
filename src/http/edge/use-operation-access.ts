import { getNamedType, getOperationAST, isObjectType, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { assertAccess, type Principal } from '../../domain/access/permissions.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Operation } from '../../domain/shared/operation.ts';
import { toGraphQLError } from '../error-envelope.ts';
import { currentRequestId } from '../request-scope.ts';
import { refusing, type EdgePlugin, type ServerContext } from './context.ts';

/** The domain operations a GraphQL operation calls at its root. */
function rootOperations(schema: GraphQLSchema, operation: OperationDefinitionNode): Operation[] {
  const root = schema.getRootType(operation.operation);
  if (!root || !isObjectType(getNamedType(root))) return [];
  const fields = root.getFields();
  return operation.selectionSet.selections.flatMap((s) => {
    if (s.kind !== 'Field') return [];
    const op = fields[s.name.value]?.extensions?.operation as Operation | undefined;
    return op ? [op] : [];
  });
}

/** A REST request's key may call its route's operation (before any input is read). */
export function checkRouteAccess(edge: ServerContext): void {
  if (edge.kind === 'rest' && edge.principal && edge.route?.operation) assertAccess(edge.principal, edge.route.operation.access);
}

/**
 * Who may call an operation is checked before its input is read, so a refused key gets its
 * 401/403, never a 422 about a body it was not allowed to send. The rule is the operation's
 * own declaration (`access`), checked again when it runs.
 */
export function useOperationAccess(): EdgePlugin {
  const check = (principal: Principal | undefined, operations: Operation[]) => {
    if (principal) for (const op of operations) assertAccess(principal, op.access);
  };
  const graphql = ({ args, setResultAndStopExecution }: { args: { schema: GraphQLSchema; document: Parameters<typeof getOperationAST>[0]; operationName?: string | null; contextValue: unknown }; setResultAndStopExecution(r: unknown): void }) => {
    // REST requests were checked before their input was read (onRequest below).
    if ((args.contextValue as ServerContext).kind === 'rest') return;
    const operation = getOperationAST(args.document, args.operationName);
    if (!operation) return;
    try {
      check((args.contextValue as ServerContext).principal, rootOperations(args.schema, operation));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      setResultAndStopExecution({ data: null, errors: [toGraphQLError(err, currentRequestId())] });
    }
  };
  return {
    onRequest: refusing(({ serverContext }) => checkRouteAccess(serverContext)),
    onExecute: graphql as never,
    onSubscribe: graphql as never,
  };
}
