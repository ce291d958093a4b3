import { builder } from '../builder.ts';
import './scalars.ts';
import './enums.ts';
import './vehicle.ts';
import './quote.ts';
import './customer.ts';
import './booking.ts';
import './payment.ts';
import './charge.ts';
import './message.ts';
import './conversation.ts';
import './dispute.ts';
import './file.ts';
import './pickup.ts';
import './insurance.ts';
import './return.ts';
import './vehicle-access.ts';
import './sandbox.ts';
import './event.ts';
import './domain.ts';
import './webhook.ts';
import './subscription.ts';

builder.queryType({ description: 'Reads. Bookings are the root of the graph.' });
builder.mutationType({ description: 'Writes; each accepts an Idempotency-Key header over HTTP.' });

export const schema = builder.toSchema({ sortSchema: false });
