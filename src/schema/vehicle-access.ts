import { builder } from '../builder.ts';
import { configureVehicleAccess, getVehicleAccess, releaseVehicleAccess, revokeVehicleAccess, type AccessView } from '../domain/vehicle-access/access-operations.ts';
import { operationField } from './operation-field.ts';

const VehicleAccessRef = builder.objectRef<AccessView>('VehicleAccess').implement({
  description: 'How the customer gets into the vehicle; the code and instructions only while released and the rental is on.',
  fields: (t) => ({
    bookingId: t.exposeID('bookingId'),
    state: t.exposeString('state', { description: 'not_configured, configured, released or revoked.' }),
    method: t.exposeString('method', { nullable: true }),
    accessCode: t.exposeString('accessCode', { nullable: true, description: 'Shown only while released and the rental is on.' }),
    instructions: t.exposeString('instructions', { nullable: true, description: 'Shown only while released and the rental is on.' }),
    releasedAt: t.expose('releasedAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

const read = operationField(getVehicleAccess);
const mutations = [configureVehicleAccess, releaseVehicleAccess, revokeVehicleAccess].map((operation) => [operation.name, operationField(operation)] as const);

builder.queryFields((t) => ({
  vehicleAccess: read.plain(t, VehicleAccessRef),
}));

builder.mutationFields((t) => Object.fromEntries(mutations.map(([name, field]) => [name, field.plain(t, VehicleAccessRef)])));
