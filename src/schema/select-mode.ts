/**
 * Pothos's select mode, on the types a page of bookings reaches most (Vehicle, Customer,
 * Payment): a read loads only the columns its GraphQL selection (or REST answer) asks for,
 * not every column of the row. A page of 100 bookings with their vehicle, customer and payment
 * read every column of the four tables, most of them unasked (bench/bookings-page.bench.ts).
 * Each field names the columns it needs (an exposed column names itself); the type always
 * loads its id, which keyset pages and idempotent replays read.
 *
 * A field that reads only its own row's columns answers straight from the row when the row
 * holds them (patches/@pothos+plugin-prisma+*.patch), so rows the domain loads in full
 * (creates, events, subscriptions) answer without another query.
 */
export const ROW_KEY = { id: true } as const;

/**
 * The select-mode models. A field that answers one row of them reads the whole row and plans
 * nothing: planning a selection of thirty columns cost the vehicle read more than reading
 * them (`npm run bench`), while a page of rows gains from reading fewer. Their fields answer
 * from the row; a relation of such a row (a payment's booking) loads as any unplanned row's.
 */
export const SELECT_MODE_MODELS = new Set(['Vehicle', 'Customer', 'Payment']);
