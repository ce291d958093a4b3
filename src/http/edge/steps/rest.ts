import type { EdgeStep } from '../runner.ts';

/** The last step of a REST request: its route runs (rest-adapter/adapter.ts) and answers. GraphQL goes on to its executor. */
export function restStep(): EdgeStep {
  return {
    name: 'rest',
    run(ctx) {
      if (ctx.kind === 'rest') return ctx.route!.execute(ctx).then((answer) => void (ctx.answer = answer));
    },
  };
}
