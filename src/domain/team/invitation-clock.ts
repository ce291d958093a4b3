import type { DomainContext } from '../shared/context.ts';

/**
 * The clocks an invitation's expiry runs on. The team belongs to both environments, but an
 * invitation is made with a key of one: a live key's invitation runs on real time, a test
 * key's on the business's sandbox clock (so advancing the sandbox clock 7 days expires it, as
 * it expires a test booking's hold).
 */
export interface InvitationClocks {
  live: Date;
  test: Date;
}

/** The time an invitation is judged at, by the environment that made it. */
export const invitationNow = (clocks: InvitationClocks, row: { originLivemode: boolean }): Date => (row.originLivemode ? clocks.live : clocks.test);

const perRequest = new WeakMap<DomainContext, Promise<InvitationClocks>>();

/** Both clocks as of this request (read once per request: a list's rows are all judged at one moment). */
export function invitationClocks(ctx: DomainContext): Promise<InvitationClocks> {
  let clocks = perRequest.get(ctx);
  if (!clocks) {
    clocks = (async () => {
      const real = ctx.now().getTime() - ctx.principal.clockOffsetMs;
      const business = await ctx.db.business.findUnique({ where: { id: ctx.tenant.businessId }, select: { sandboxClockOffsetSeconds: true } });
      return { live: new Date(real), test: new Date(real + (business?.sandboxClockOffsetSeconds ?? 0) * 1000) };
    })();
    perRequest.set(ctx, clocks);
  }
  return clocks;
}
