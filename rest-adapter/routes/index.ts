import type { RestRoute } from '../route.ts';
import { bookingRoutes } from './bookings.ts';
import { conversationRoutes } from './conversations.ts';
import { customerRoutes } from './customers.ts';
import { developerRoutes } from './developers.ts';
import { domainRoutes } from './domains.ts';
import { fileRoutes } from './files.ts';
import { fleetRoutes } from './fleet.ts';
import { moneyRoutes } from './money.ts';
import { sandboxRoutes } from './sandbox.ts';
import { tripRoutes } from './trip.ts';

/** Every /v1 route, by API group. */
export const routes: RestRoute[] = [...fleetRoutes, ...bookingRoutes, ...tripRoutes, ...moneyRoutes, ...fileRoutes, ...customerRoutes, ...conversationRoutes, ...domainRoutes, ...developerRoutes, ...sandboxRoutes];

