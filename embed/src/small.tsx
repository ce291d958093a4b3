import { useEffect, useState } from 'preact/hooks';
import type { PublicVehicle } from './api.ts';
import { asEmbedError, type ElementProps } from './element.ts';
import { EmbedError } from './api.ts';

/** Loads once, reporting a failure as the contract's rental:error and in words (role="alert"). */
function useLoad<T>(props: ElementProps, load: (() => Promise<T>) | null, missing: EmbedError | null = null): { data: T | null; error: EmbedError | null } {
  const [state, setState] = useState<{ data: T | null; error: EmbedError | null }>({ data: null, error: props.keyError ?? missing });
  useEffect(() => {
    if (!props.keyError && missing) props.emit('rental:error', { code: missing.code, message: missing.message });
    if (!load) return;
    load().then(
      (data) => setState({ data, error: null }),
      (err) => {
        const e = asEmbedError(err);
        setState({ data: null, error: e });
        props.emit('rental:error', { code: e.code, message: e.message });
      },
    );
  }, []);
  return state;
}

/** <rental-vehicles>: the public fleet, each vehicle with its daily price. */
export function VehicleList(props: ElementProps) {
  const { t, money } = props.locale;
  const { data, error } = useLoad<PublicVehicle[]>(props, props.api ? () => props.api!.publicVehicles() : null);
  return (
    <section class="panel" aria-label={t.fleet}>
      <h2>{t.fleet}</h2>
      {error ? <p class="error" role="alert">{error.message}</p> : null}
      {!data && !error ? <p class="note" role="status">{t.loading}</p> : null}
      {data ? (
        <ul class="choices">
          {data.map((v) => (
            <li key={v.id} class="choice" data-vehicle-id={v.id}>
              <span class="name">{v.name}</span>
              <span>{t.perDay(money(v.daily_rate_cents, v.currency))}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

const DAY_MS = 86_400_000;

/** <rental-availability vehicle-id="...">: the vehicle's next 30 days, each free or booked. */
export function VehicleAvailability(props: ElementProps) {
  const { t, date } = props.locale;
  const from = new Date();
  from.setHours(0, 0, 0, 0);
  const to = new Date(from.getTime() + 30 * DAY_MS);
  const missing = props.vehicleId ? null : new EmbedError('vehicle_id_missing', t.errors.missingVehicle);
  const { data, error } = useLoad(props, props.api && props.vehicleId ? () => props.api!.availability(props.vehicleId!, from.toISOString(), to.toISOString()) : null, missing);
  const days = Array.from({ length: 30 }, (_, i) => new Date(from.getTime() + i * DAY_MS));
  const busy = (day: Date) => (data?.busy_periods ?? []).some((p) => new Date(p.start_at).getTime() < day.getTime() + DAY_MS && new Date(p.end_at).getTime() > day.getTime());
  return (
    <section class="panel" aria-label={t.freeDays}>
      <h2>{t.freeDays}</h2>
      {error ? <p class="error" role="alert">{error.message}</p> : null}
      {!data && !error ? <p class="note" role="status">{t.loading}</p> : null}
      {data ? (
        <table>
          <tbody>
            {days.map((d) => (
              <tr key={d.toISOString()}>
                <th scope="row">{date(d.toISOString())}</th>
                <td class={busy(d) ? 'busy' : 'free'}>{busy(d) ? t.busy : t.free}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
