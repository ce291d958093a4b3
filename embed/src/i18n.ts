/*
 * The elements' words, in English (the contract's accessible names) and Spanish, chosen by
 * the `locale` attribute, else the page's language, else the browser's. Dates, times and
 * money are formatted with Intl in that locale.
 */

const en = {
  pickUp: 'Pick-up',
  return: 'Return',
  search: 'Search',
  searching: 'Looking for vehicles…',
  chooseDates: 'When do you need a vehicle?',
  vehicles: 'Available vehicles',
  noVehicles: 'No vehicle is free for these dates. Try other dates.',
  forPeriod: (price: string, days: number) => `${price} for ${days} ${days === 1 ? 'day' : 'days'}`,
  perDay: (price: string) => `${price} a day`,
  total: 'Total',
  deposit: (amount: string) => `A security deposit of ${amount} is held separately.`,
  details: 'Your details',
  fullName: 'Full name',
  email: 'Email',
  phone: 'Phone',
  optional: '(optional)',
  book: 'Book',
  booking: 'Booking…',
  payment: 'Payment',
  testPayment: 'Test payment (sandbox): no card is charged.',
  pay: 'Pay',
  decline: 'Decline',
  loadingPaymentForm: 'Loading the secure payment form…',
  confirmingPayment: 'Payment accepted. Confirming your booking…',
  paying: 'Paying…',
  confirmed: 'Booking confirmed',
  bookingId: 'Booking',
  state: 'State',
  from: 'From',
  to: 'To',
  fleet: 'Our vehicles',
  freeDays: 'Free days',
  busy: 'booked',
  free: 'free',
  loading: 'Loading…',
  errors: {
    secretKey: 'This element was given a secret key. Secret keys must never be put in a web page: nothing was sent. Use the publishable key (svc_..._pk_...) and revoke the exposed secret key.',
    missingKey: 'The publishable-key attribute is missing or is not a publishable key (svc_..._pk_...).',
    missingVehicle: 'The vehicle-id attribute is missing: it names the vehicle (veh_...) whose free days to show.',
    unreachable: 'The booking service cannot be reached. Check your connection and try again.',
    refusedOrigin: (origin: string) =>
      `This site (${origin}) is not allowed to take bookings with this key. The business must add ${origin} to the allowed origins of its website settings.`,
    dates: 'Choose a return after the pick-up, and a pick-up in the future.',
    name: 'Enter your full name.',
    emailInvalid: 'Enter a valid email address.',
    declined: 'The card was declined. Nothing was charged; you can try again.',
    paymentFailed: 'The payment did not go through. Nothing was charged; you can try again.',
    paymentsNotConfigured: 'Card payments are not set up for this business yet. Nothing was charged; please contact the business.',
    processorUnavailable: 'The secure payment form could not be loaded. Check your connection and try again.',
    bookingCanceled: (id: string) => `Booking ${id} was canceled before its payment arrived.`,
    unavailable: 'This vehicle was just booked for part of these dates. Choose another vehicle or other dates.',
  },
};

type Words = typeof en;

const es: Words = {
  pickUp: 'Recogida',
  return: 'Devolución',
  search: 'Buscar',
  searching: 'Buscando vehículos…',
  chooseDates: '¿Cuándo necesita un vehículo?',
  vehicles: 'Vehículos disponibles',
  noVehicles: 'No hay vehículos libres en estas fechas. Pruebe otras fechas.',
  forPeriod: (price, days) => `${price} por ${days} ${days === 1 ? 'día' : 'días'}`,
  perDay: (price) => `${price} al día`,
  total: 'Total',
  deposit: (amount) => `Se retiene aparte una fianza de ${amount}.`,
  details: 'Sus datos',
  fullName: 'Nombre completo',
  email: 'Correo electrónico',
  phone: 'Teléfono',
  optional: '(opcional)',
  book: 'Reservar',
  booking: 'Reservando…',
  payment: 'Pago',
  testPayment: 'Pago de prueba (sandbox): no se cobra ninguna tarjeta.',
  pay: 'Pagar',
  decline: 'Rechazar',
  loadingPaymentForm: 'Cargando el formulario de pago seguro…',
  confirmingPayment: 'Pago aceptado. Confirmando su reserva…',
  paying: 'Pagando…',
  confirmed: 'Reserva confirmada',
  bookingId: 'Reserva',
  state: 'Estado',
  from: 'Desde',
  to: 'Hasta',
  fleet: 'Nuestros vehículos',
  freeDays: 'Días libres',
  busy: 'reservado',
  free: 'libre',
  loading: 'Cargando…',
  errors: {
    secretKey: 'Este elemento recibió una clave secreta. Las claves secretas nunca deben ponerse en una página web: no se envió nada. Use la clave publicable (svc_..._pk_...) y revoque la clave secreta expuesta.',
    missingKey: 'Falta el atributo publishable-key o no es una clave publicable (svc_..._pk_...).',
    missingVehicle: 'Falta el atributo vehicle-id: indica el vehículo (veh_...) cuyos días libres mostrar.',
    unreachable: 'No se puede contactar con el servicio de reservas. Compruebe su conexión e inténtelo de nuevo.',
    refusedOrigin: (origin) => `Este sitio (${origin}) no puede tomar reservas con esta clave. La empresa debe añadir ${origin} a los orígenes permitidos de su sitio web.`,
    dates: 'Elija una devolución posterior a la recogida, y una recogida futura.',
    name: 'Escriba su nombre completo.',
    emailInvalid: 'Escriba un correo electrónico válido.',
    declined: 'La tarjeta fue rechazada. No se cobró nada; puede intentarlo de nuevo.',
    paymentFailed: 'El pago no se realizó. No se cobró nada; puede intentarlo de nuevo.',
    paymentsNotConfigured: 'Los pagos con tarjeta aún no están configurados para esta empresa. No se cobró nada; contacte con la empresa.',
    processorUnavailable: 'No se pudo cargar el formulario de pago seguro. Compruebe su conexión e inténtelo de nuevo.',
    bookingCanceled: (id) => `La reserva ${id} se canceló antes de que llegara su pago.`,
    unavailable: 'Este vehículo acaba de reservarse en parte de estas fechas. Elija otro vehículo u otras fechas.',
  },
};

const WORDS: Record<string, Words> = { en, es };

export interface Locale {
  tag: string;
  t: Words;
  money(cents: number, currency: string): string;
  dateTime(iso: string): string;
  date(iso: string): string;
}

/** The locale of an element: its `locale` attribute, else the page's `lang`, else the browser's. */
export function localeOf(element: HTMLElement): Locale {
  const wanted = element.getAttribute('locale') || element.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || navigator.language || 'en';
  let tag = 'en';
  try {
    tag = Intl.getCanonicalLocales(wanted)[0] ?? 'en';
  } catch {
    /* not a language tag: English */
  }
  const t = WORDS[tag.split('-')[0].toLowerCase()] ?? en;
  const lang = WORDS[tag.split('-')[0].toLowerCase()] ? tag : 'en';
  return {
    tag: lang,
    t,
    money: (cents, currency) => new Intl.NumberFormat(lang, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100),
    dateTime: (iso) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)),
    date: (iso) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(new Date(iso)),
  };
}
