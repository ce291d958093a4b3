import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of the fleet: archived vehicles, and archiving a vehicle that is still booked. */
export const VehicleErrors = errorCatalogue('vehicle', {
  archived: {
    type: 'conflict',
    code: 'vehicle_archived',
    description: 'The vehicle is archived: it leaves availability search and takes no new quotes or bookings. Choose another vehicle.',
    details: ['vehicle_id'],
    build: (vehicleId: string, param?: string) => ({ message: `Vehicle ${vehicleId} is archived and takes no new quotes or bookings.`, param, details: { vehicle_id: vehicleId } }),
  },
  stillBooked: {
    type: 'conflict',
    code: 'vehicle_has_bookings',
    description:
      'The vehicle cannot be archived while bookings still hold it (any booking not canceled, refunded or completed that has not ended, or whose vehicle is still out). `booking_count` says how many, `booking_ids` lists up to 10 of them; cancel or complete them first.',
    details: ['booking_count', 'booking_ids'],
    build: (vehicleId: string, count: number, bookingIds: string[]) => ({
      message: `Vehicle ${vehicleId} cannot be archived: ${count} booking${count === 1 ? '' : 's'} still hold${count === 1 ? 's' : ''} it (${bookingIds.join(', ')}${count > bookingIds.length ? ', ...' : ''}). Cancel or complete ${count === 1 ? 'it' : 'them'} first.`,
      details: { booking_count: count, booking_ids: bookingIds },
    }),
  },
});
