import type { RestRoute } from '../route.ts';
import { agreementRoutes } from './agreements.ts';
import { bookingRoutes } from './bookings.ts';
import { businessRoutes } from './business.ts';
import { conversationRoutes } from './conversations.ts';
import { customerRoutes } from './customers.ts';
import { developerRoutes } from './developers.ts';
import { domainRoutes } from './domains.ts';
import { fileRoutes } from './files.ts';
import { fleetRoutes } from './fleet.ts';
import { identityRoutes } from './identity.ts';
import { moneyRoutes } from './money.ts';
import { reportRoutes } from './reports.ts';
import { sandboxRoutes } from './sandbox.ts';
import { teamRoutes } from './team.ts';
import { tripRoutes } from './trip.ts';
import { websiteRoutes } from './website.ts';

/** Every /v1 route, by API group. */
export const routes: RestRoute[] = [
  ...fleetRoutes,
  ...bookingRoutes,
  ...tripRoutes,
  ...identityRoutes,
  ...agreementRoutes,
  ...moneyRoutes,
  ...fileRoutes,
  ...customerRoutes,
  ...conversationRoutes,
  ...reportRoutes,
  ...teamRoutes,
  ...businessRoutes,
  ...domainRoutes,
  ...websiteRoutes,
  ...developerRoutes,
  ...sandboxRoutes,
];

