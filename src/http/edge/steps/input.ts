import { DomainError } from '../../../domain/shared/errors.ts';
import { documentProblem, inputProblem, jsonObjectBody } from '../../input-safety.ts';
import type { EdgeStep } from '../runner.ts';

/**
 * The one input check (src/http/input-safety.ts) before any operation runs: a REST request's
 * query string and JSON body (read once here, `ctx.input`), a GraphQL request's variables and
 * the literals written in its document. No NUL, no unpaired surrogate, no `__proto__` key, no
 * nesting deeper than 32 levels; a body that is not a JSON object is 400 invalid_json.
 */
export function inputStep(): EdgeStep {
  return {
    name: 'input',
    run(ctx) {
      if (ctx.kind === 'rest') {
        if (ctx.request.search !== '') for (const [key, value] of ctx.request.searchParams) {
          const problem = inputProblem(value, [key]);
          if (problem) throw problem;
        }
        if (ctx.route?.takesJson) ctx.input = ctx.body === undefined ? {} : jsonObjectBody(ctx.body);
        return;
      }
      const graphql = ctx.graphql;
      if (ctx.kind !== 'graphql' || !graphql) return;
      const problem = inputProblem(graphql.params.variables ?? {}, []) ?? (graphql.document ? documentProblem(graphql.document) : null);
      if (problem instanceof DomainError) throw problem;
    },
  };
}
