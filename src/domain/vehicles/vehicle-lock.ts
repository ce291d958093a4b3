import type { Vehicle } from '../../generated/prisma/client.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { tenantLocks } from '../../db/tenant-db.ts';

/**
 * Read the caller's vehicle inside `tx` with its row locked FOR UPDATE until the transaction
 * ends. Writers of a vehicle queue here; a booking being inserted holds the row FOR SHARE
 * (the "Booking_vehicle_active" trigger), so an archive waits for it and then counts it.
 */
export async function lockVehicle(tx: Db, ctx: DomainContext, vehicleId: string): Promise<Vehicle> {
  await tenantLocks(tx).$lockRow('Vehicle', vehicleId);
  return found(tx.vehicle.findUnique({ where: { id: vehicleId } }), 'vehicle', vehicleId);
}
