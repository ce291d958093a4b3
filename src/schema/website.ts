import { builder } from '../builder.ts';
import { getBranding, updateBranding } from '../domain/website/branding-operations.ts';
import { getPublicVehicle, listPublicVehicles } from '../domain/website/public-vehicles.ts';
import { getWebsite, updateWebsite } from '../domain/website/website-operations.ts';
import { BRANDING_FIELDS, publicLocation, WEBSITE_FIELDS } from '../domain/website/website.fields.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

builder.prismaObject('Website', {
  description: "The customer-facing website's configuration, per environment.",
  fields: (t) => ({ ...(exposePublicFields(t, WEBSITE_FIELDS, enums) as {}) }),
});

builder.prismaObject('Branding', {
  description: "The website's colors, logo and font, per environment.",
  fields: (t) => ({ ...(exposePublicFields(t, BRANDING_FIELDS, enums) as {}) }),
});

/** A vehicle as the public fleet shows it (no metadata, status, access method or private location lines). */
const PublicVehicle = builder.prismaObject('Vehicle', {
  variant: 'PublicVehicle',
  description: 'A vehicle of the public fleet, as customers see it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    livemode: t.exposeBoolean('livemode'),
    name: t.exposeString('name'),
    make: t.exposeString('make', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    year: t.exposeInt('year', { nullable: true }),
    currency: t.exposeString('currency'),
    dailyRateCents: t.exposeInt('dailyRateCents'),
    depositCents: t.exposeInt('depositCents'),
    includedMiles: t.exposeInt('includedMiles', { description: 'Miles included per rental day.' }),
    extraMileFeeCents: t.exposeInt('extraMileFeeCents'),
    unlimitedMilesDailyCents: t.exposeInt('unlimitedMilesDailyCents', { nullable: true, description: 'Daily price of unlimited miles; null when not offered.' }),
    location: t.field({ type: 'JSON', nullable: true, description: 'Where it is picked up: name, city, state, region, postal_code, country.', resolve: (v) => publicLocation(v.location) }),
    deliveryOptions: t.expose('deliveryOptions', { type: 'JSON' }),
    minimumAge: t.exposeInt('minimumAge'),
    photos: t.expose('photos', { type: 'JSON' }),
    features: t.exposeStringList('features'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const website = operationField(getWebsite);
const branding = operationField(getBranding);
const publicVehicles = operationField(listPublicVehicles);
const publicVehicle = operationField(getPublicVehicle);
const mutations = [
  [updateWebsite, 'Website'],
  [updateBranding, 'Branding'],
] as const;

builder.queryFields((t) => ({
  website: website.prisma(t, 'Website'),
  branding: branding.prisma(t, 'Branding'),
  publicVehicles: publicVehicles.connection(t, PublicVehicle),
  publicVehicle: publicVehicle.plain(t, PublicVehicle),
}));

builder.mutationFields((t) => Object.fromEntries(mutations.map(([operation, type]) => [operation.name, operationField(operation).prisma(t, type)])));
