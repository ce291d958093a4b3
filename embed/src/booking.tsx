import { useEffect, useRef, useState } from 'preact/hooks';
import type { Booking, Checkout, PublicVehicle, Quote } from './api.ts';
import { EmbedError } from './api.ts';
import { asEmbedError, type ElementProps } from './element.ts';
import { LivePayment } from './live-payment.tsx';

/*
 * <rental-booking>: the whole flow. Dates ("Pick-up", "Return", "Search"); the available
 * vehicles, each a radio named by the vehicle and its price for the period; the quote's
 * total; the customer ("Full name", "Email", "Phone"); "Book"; payment (sandbox: "Pay" and
 * "Decline", which drive the sandbox processor through the checkout's hosted page; live: the
 * processor's payment form inside the element, src/live-payment.tsx); the confirmation with
 * the booking's id and state. Each error is shown in words next to what caused it, with
 * role="alert".
 */

type Option = { vehicle: PublicVehicle; quote: Quote };
type Step = 'dates' | 'vehicles' | 'details' | 'payment' | 'done';

/** `YYYY-MM-DDTHH:mm` of a local time, as a datetime-local input takes it. */
const localInput = (d: Date) => {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
};
const daysFromNow = (days: number) => {
  const d = new Date();
  d.setDate(d.getDate() + days);
  d.setHours(10, 0, 0, 0);
  return d;
};

/** Moves focus to a step's heading when it appears, so keyboard and screen-reader users follow the flow. */
function Heading({ text, level = 3 }: { text: string; level?: 2 | 3 }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return level === 2 ? <h2 ref={ref} tabIndex={-1}>{text}</h2> : <h3 ref={ref} tabIndex={-1}>{text}</h3>;
}

function Alert({ error }: { error: EmbedError | null }) {
  return error ? <p class="error" role="alert">{error.message}</p> : null;
}

export function BookingFlow(props: ElementProps) {
  const { api, locale, emit, sandbox } = props;
  const t = locale.t;
  const [step, setStep] = useState<Step>('dates');
  const [start, setStart] = useState(localInput(daysFromNow(1)));
  const [end, setEnd] = useState(localInput(daysFromNow(4)));
  const [options, setOptions] = useState<Option[] | null>(null);
  const [chosen, setChosen] = useState<Option | null>(null);
  const [customer, setCustomer] = useState({ name: '', email: '', phone: '' });
  const [invalid, setInvalid] = useState<Record<string, string>>({});
  const [booking, setBooking] = useState<(Booking & { client_secret: string }) | null>(null);
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Step, EmbedError>>>({});

  const fail = (where: Step, err: unknown) => {
    const e = asEmbedError(err);
    setErrors((all) => ({ ...all, [where]: e }));
    emit('rental:error', { code: e.code, message: e.message });
  };
  const clear = (where: Step) => setErrors((all) => ({ ...all, [where]: undefined }));
  const run = async (where: Step, work: () => Promise<void>) => {
    setBusy(true);
    clear(where);
    try {
      await work();
    } catch (err) {
      fail(where, err);
    } finally {
      setBusy(false);
    }
  };

  if (!api) return <div class="panel"><p class="error" role="alert">{props.keyError?.message}</p></div>;

  const search = (event: Event) => {
    event.preventDefault();
    const startAt = new Date(start);
    const endAt = new Date(end);
    if (!(startAt.getTime() > Date.now()) || !(endAt > startAt)) {
      fail('dates', new EmbedError('dates_invalid', t.errors.dates));
      return;
    }
    void run('dates', async () => {
      setOptions(null);
      setChosen(null);
      const fleet = props.vehicleId ? [await api.publicVehicle(props.vehicleId)] : await api.publicVehicles();
      const quoted = await Promise.allSettled(fleet.map(async (vehicle) => ({ vehicle, quote: await api.quote(vehicle.id, startAt.toISOString(), endAt.toISOString()) })));
      const ok = quoted.flatMap((q) => (q.status === 'fulfilled' && q.value.quote.available ? [q.value] : []));
      const refused = quoted.find((q): q is PromiseRejectedResult => q.status === 'rejected');
      if (ok.length === 0 && refused) throw refused.reason;
      setOptions(ok);
      setStep('vehicles');
    });
  };

  const choose = (option: Option) => {
    setChosen(option);
    setStep('details');
    emit('rental:quote', { quote_id: option.quote.id, total_cents: option.quote.total_cents, currency: option.quote.currency });
  };

  const book = (event: Event) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    if (!customer.name.trim()) problems.name = t.errors.name;
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(customer.email.trim())) problems.email = t.errors.emailInvalid;
    setInvalid(problems);
    if (Object.keys(problems).length) {
      fail('details', new EmbedError('parameter_invalid', Object.values(problems).join(' ')));
      return;
    }
    void run('details', async () => {
      const q = chosen!.quote;
      let created;
      try {
        created = await api.book({
          vehicle_id: chosen!.vehicle.id,
          start_at: q.start_at,
          end_at: q.end_at,
          quote_id: q.id,
          customer: { name: customer.name.trim(), email: customer.email.trim(), ...(customer.phone.trim() ? { phone: customer.phone.trim() } : {}) },
        });
      } catch (err) {
        const e = asEmbedError(err);
        if (e.code === 'vehicle_unavailable') throw new EmbedError(e.code, t.errors.unavailable);
        if (e.param?.startsWith('customer.')) setInvalid({ [e.param.slice('customer.'.length)]: e.message });
        throw e;
      }
      const withSecret = created as Booking & { client_secret: string };
      setBooking(withSecret);
      emit('rental:booking', { booking_id: withSecret.id, state: withSecret.state });
      setCheckout(await api.checkout(withSecret.id, withSecret.client_secret));
      setStep('payment');
    });
  };

  const pay = (outcome: 'pay' | 'decline') =>
    run('payment', async () => {
      // A declined payment ends its checkout: the next attempt starts a new one.
      const current = checkout ?? (await api.checkout(booking!.id, booking!.client_secret));
      setCheckout(current);
      const result = await api.testPayment(current.url, outcome);
      if (result.outcome === 'declined') {
        setCheckout(null);
        throw new EmbedError('card_declined', t.errors.declined);
      }
      paid(await api.booking(booking!.id, booking!.client_secret));
    });

  const paid = (now: Booking) => {
    setBooking({ ...now, client_secret: booking!.client_secret });
    setStep('done');
    emit('rental:paid', { booking_id: now.id });
  };

  const field = (name: 'name' | 'email' | 'phone', label: string, type: 'text' | 'email' | 'tel', autocomplete: string, required: boolean) => (
    <label>
      <span>
        {label}
        {required ? '' : <span class="note"> {t.optional}</span>}
      </span>
      <input
        {...({ type } as { type: 'text' })}
        name={name}
        autocomplete={autocomplete}
        required={required}
        value={customer[name]}
        aria-invalid={invalid[name] ? 'true' : undefined}
        aria-describedby={invalid[name] ? `err-${name}` : undefined}
        onInput={(e) => setCustomer({ ...customer, [name]: (e.target as HTMLInputElement).value })}
      />
      {invalid[name] ? <span class="field-error" id={`err-${name}`}>{invalid[name]}</span> : null}
    </label>
  );

  if (step === 'done' && booking) {
    return (
      <div class="panel" part="confirmation">
        <Heading text={t.confirmed} level={2} />
        <p role="status">
          {t.bookingId} <strong>{booking.id}</strong>: {booking.state}
        </p>
        <dl>
          <dt>{t.bookingId}</dt>
          <dd>{booking.id}</dd>
          <dt>{t.state}</dt>
          <dd>{booking.state}</dd>
          <dt>{t.from}</dt>
          <dd>{locale.dateTime(booking.start_at)}</dd>
          <dt>{t.to}</dt>
          <dd>{locale.dateTime(booking.end_at)}</dd>
          <dt>{t.total}</dt>
          <dd>{locale.money(booking.total_cents, booking.currency)}</dd>
        </dl>
      </div>
    );
  }

  if (step === 'payment' && booking) {
    return (
      <div class="panel" part="payment">
        <Heading text={t.payment} level={2} />
        <p>
          {chosen?.vehicle.name}: {t.total} <strong>{locale.money(booking.total_cents, booking.currency)}</strong>
        </p>
        <p class="note">
          {t.bookingId} {booking.id}
        </p>
        {sandbox ? (
          <>
            <p class="note">{t.testPayment}</p>
            <div class="actions">
              <button type="button" disabled={busy} onClick={() => void pay('pay')}>{t.pay}</button>
              <button type="button" class="secondary" disabled={busy} onClick={() => void pay('decline')}>{t.decline}</button>
            </div>
          </>
        ) : checkout ? (
          <LivePayment host={props.host} api={api} booking={booking} checkout={checkout} locale={locale} onPaid={paid} onError={(e) => (e ? fail('payment', e) : clear('payment'))} />
        ) : null}
        <Alert error={errors.payment ?? null} />
      </div>
    );
  }

  return (
    <div class="panel" part="flow">
      <form onSubmit={search} aria-label={t.chooseDates} noValidate>
        <h2>{t.chooseDates}</h2>
        <div class="row">
          <label>
            {t.pickUp}
            <input type="datetime-local" name="start_at" value={start} required onInput={(e) => setStart((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            {t.return}
            <input type="datetime-local" name="end_at" value={end} required onInput={(e) => setEnd((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" disabled={busy && step === 'dates'}>{t.search}</button>
        </div>
        {busy && step === 'dates' ? <p class="note" role="status">{t.searching}</p> : null}
        <Alert error={errors.dates ?? null} />
      </form>

      {options && (step === 'vehicles' || step === 'details') ? (
        <fieldset>
          <legend>
            <Heading text={t.vehicles} />
          </legend>
          {options.length === 0 ? <p>{t.noVehicles}</p> : null}
          <ul class="choices">
            {options.map((o) => (
              <li key={o.vehicle.id}>
                <label class="choice">
                  <input type="radio" name="vehicle" value={o.vehicle.id} checked={chosen?.vehicle.id === o.vehicle.id} onChange={() => choose(o)} />
                  <span>
                    <span class="name">{o.vehicle.name}</span> — {t.forPeriod(locale.money(o.quote.total_cents, o.quote.currency), o.quote.days)}
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      ) : null}

      {chosen && step === 'details' ? (
        <form onSubmit={book} aria-label={t.details} noValidate>
          <p class="total" role="status">
            {t.total}: <strong>{locale.money(chosen.quote.total_cents, chosen.quote.currency)}</strong>
          </p>
          {chosen.quote.deposit_cents > 0 ? <p class="note">{t.deposit(locale.money(chosen.quote.deposit_cents, chosen.quote.currency))}</p> : null}
          <h3>{t.details}</h3>
          <div class="row">
            {field('name', t.fullName, 'text', 'name', true)}
            {field('email', t.email, 'email', 'email', true)}
            {field('phone', t.phone, 'tel', 'tel', false)}
          </div>
          <div class="actions">
            <button type="submit" disabled={busy}>{busy ? t.booking : t.book}</button>
          </div>
          <Alert error={errors.details ?? null} />
        </form>
      ) : null}
    </div>
  );
}
