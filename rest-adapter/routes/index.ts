import type { RestRoute } from '../route.ts';
import { agreementRoutes } from './agreements.ts';
import { appRoutes } from './apps.ts';
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

/** An API group: one route file, one OpenAPI tag. */
export interface RouteGroup {
  /** The OpenAPI tag (the route file's name). */
  tag: string;
  description: string;
  routes: RestRoute[];
}

/** The API groups, in the order the OpenAPI document lists them. */
export const routeGroups: RouteGroup[] = [
  { tag: 'fleet', description: 'Vehicles, their pricing and availability, and quotes.', routes: fleetRoutes },
  { tag: 'bookings', description: 'Bookings: creating, reading, updating, extending, approving and canceling them, and their lifecycle history.', routes: bookingRoutes },
  { tag: 'trip', description: 'The trip: insurance, pickup (readiness, photos, odometer, hand-over), vehicle access, and the return (photos, odometer, review).', routes: tripRoutes },
  { tag: 'identity', description: "Identity verification of a booking's customer: starting it with uploaded documents, its state, short-lived links to its media.", routes: identityRoutes },
  { tag: 'agreements', description: "A booking's rental agreement: the document, sending it for signature, voiding it, its state.", routes: agreementRoutes },
  { tag: 'money', description: 'Payments, refunds and transactions, security deposits, post-trip charges and their disputes.', routes: moneyRoutes },
  { tag: 'files', description: 'Uploaded files (signed upload and download links) and the evidence that cites them.', routes: fileRoutes },
  { tag: 'customers', description: 'Customers, their bookings, and messages to them.', routes: customerRoutes },
  { tag: 'conversations', description: 'Conversations with customers and the messages in them.', routes: conversationRoutes },
  { tag: 'reports', description: 'Revenue, bookings, utilization and disputes reports, as JSON or CSV.', routes: reportRoutes },
  { tag: 'team', description: 'The team: members (role, permissions, removal) and invitations.', routes: teamRoutes },
  { tag: 'business', description: 'The business itself and its rental settings.', routes: businessRoutes },
  { tag: 'domains', description: "Custom domains of the business's website, verified through DNS.", routes: domainRoutes },
  { tag: 'website', description: 'The customer-facing website, its branding, and the public fleet it shows.', routes: websiteRoutes },
  { tag: 'developers', description: 'Events (catching up after downtime) and webhook endpoints, their deliveries and test sends.', routes: developerRoutes },
  { tag: 'apps', description: 'OAuth apps: the apps a platform registers, and the apps a business connected (the authorization server is at /oauth/*).', routes: appRoutes },
  { tag: 'sandbox', description: 'Simulations for test secret keys: payments, identity, pickup, return, disputes, webhooks and the sandbox clock.', routes: sandboxRoutes },
];

/** Every /v1 route, by API group. */
export const routes: RestRoute[] = routeGroups.flatMap((g) => g.routes);
