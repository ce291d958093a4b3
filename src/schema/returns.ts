import { builder } from '../builder.ts';
import { completeReturn } from '../domain/returns/return.service.ts';

builder.mutationFields((t) => ({
  completeReturn: t.prismaField({
    type: 'Booking',
    description: 'Complete an eligible return (return_in_review → completed; emits rental.completed).',
    args: { bookingId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => completeReturn(ctx.domain, String(args.bookingId), query),
  }),
}));
