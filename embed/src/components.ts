import { BookingFlow } from './booking.tsx';
import { defineElement } from './element.ts';
import { VehicleAvailability, VehicleList } from './small.tsx';

/*
 * GET /embed/v1/components.js: the embedded booking components, one ES module.
 *
 *   <script type="module" src="https://api.example.com/embed/v1/components.js"></script>
 *   <rental-booking publishable-key="svc_live_pk_..."></rental-booking>
 */
defineElement('rental-booking', BookingFlow);
defineElement('rental-vehicles', VehicleList);
defineElement('rental-availability', VehicleAvailability);
