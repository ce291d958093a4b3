import { DomainError } from '../../domain/shared/errors.ts';
import { toGraphQLError } from '../error-envelope.ts';
import { documentProblem, inputProblem } from '../input-safety.ts';
import { currentRequestId } from '../request-scope.ts';
import type { EdgePlugin, ServerContext } from './context.ts';

/**
 * GraphQL's variables and literals pass the one input check (src/http/input-safety.ts) before
 * any resolver runs: the REST adapter applies the same check to its path, query and body.
 */
export function useSafeInput(): EdgePlugin {
  const check = ({ args, setResultAndStopExecution }: { args: { document: Parameters<typeof documentProblem>[0]; variableValues?: unknown; contextValue: unknown }; setResultAndStopExecution(r: unknown): void }) => {
    // REST requests passed the same check in the adapter, on their REST names.
    if ((args.contextValue as ServerContext).kind === 'rest') return;
    const problem = inputProblem(args.variableValues ?? {}, []) ?? documentProblem(args.document);
    if (problem instanceof DomainError) setResultAndStopExecution({ data: null, errors: [toGraphQLError(problem, currentRequestId())] });
  };
  return { onExecute: check as never, onSubscribe: check as never };
}
