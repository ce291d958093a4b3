import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, can, currentSession, NO_ACCESS, signIn, signOut, type OpsSession } from './api.ts';
import { disconnectApp, loadBoard, retryDelivery, type Board, type BookingRow, type Section } from './board.ts';
import { liveEvents, type FeedEvent, type LiveStatus } from './live.ts';

type View = { kind: 'loading' } | { kind: 'signed_out'; problem?: string } | { kind: 'board'; session: OpsSession };

/** The sign-in link's token, in the URL's fragment (never sent to a server by the browser). */
function linkToken(): string | null {
  const m = /[#&]token=([A-Za-z0-9_-]+)/.exec(location.hash);
  return m ? m[1] : null;
}

export function App() {
  const [view, setView] = useState<View>({ kind: 'loading' });

  useEffect(() => {
    const token = linkToken();
    // The link's token leaves the address bar (and the history) at once.
    if (token || location.pathname !== '/ops') history.replaceState(null, '', '/ops');
    (async () => {
      try {
        const session = token ? await signIn(token) : await currentSession();
        setView(session ? { kind: 'board', session } : { kind: 'signed_out' });
      } catch (err) {
        setView({ kind: 'signed_out', problem: err instanceof ApiError ? err.message : String(err) });
      }
    })();
  }, []);

  if (view.kind === 'loading') return <main class="center"><p>Loading…</p></main>;
  if (view.kind === 'signed_out') return <SignIn problem={view.problem} />;
  return <BoardView session={view.session} onSignedOut={() => setView({ kind: 'signed_out' })} />;
}

function SignIn({ problem }: { problem?: string }) {
  return (
    <main class="center">
      <section class="card signin">
        <h1>Sign in to the ops screen</h1>
        {problem && <p class="problem" role="alert">{problem}</p>}
        <p>Staff sign in with a one-time link. An administrator prints one for you with:</p>
        <pre>npm run admin -- member sign-in-link --business biz_… --member mem_… --mode test</pre>
        <p>Open the link within 15 minutes; it works once and signs you in as that team member, with their role.</p>
      </section>
    </main>
  );
}

const FEED_MAX = 100;

function BoardView({ session, onSignedOut }: { session: OpsSession; onSignedOut(): void }) {
  const [board, setBoard] = useState<Board | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [feed, setFeed] = useState<(FeedEvent & { via: 'live' | 'catch_up' })[]>([]);
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const refreshing = useRef<{ running: boolean; again: boolean }>({ running: false, again: false });

  /** Read the board again (after an event); one read at a time, the latest wins. */
  const refresh = useCallback(async () => {
    const r = refreshing.current;
    if (r.running) {
      r.again = true;
      return;
    }
    r.running = true;
    try {
      do {
        r.again = false;
        try {
          setBoard(await loadBoard(session));
          setFailure(null);
        } catch (err) {
          if (err instanceof ApiError && err.status === 401) return onSignedOut();
          setFailure(err instanceof Error ? err.message : String(err));
        }
      } while (r.again);
    } finally {
      r.running = false;
    }
  }, [session]);

  useEffect(() => {
    void refresh();
    if (!can(session, 'events:read')) return;
    const live = liveEvents(session, {
      events(events, via) {
        setFeed((old) => [...events.map((e) => ({ ...e, via })), ...old].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, FEED_MAX));
        void refresh();
      },
      status(s) {
        setStatus(s);
        if (s === 'signed_out') onSignedOut();
      },
    });
    return () => live.stop();
  }, [session]);

  const writeWebhooks = can(session, 'webhooks:write');
  const writeBusiness = can(session, 'business:write');
  return (
    <div class="board">
      <header>
        <div>
          <h1>{session.business.name} <span class={`mode ${session.livemode ? 'live' : 'test'}`}>{session.livemode ? 'live' : 'test'}</span></h1>
          <p class="who">{session.member.name ?? session.member.email} · {session.member.role}</p>
        </div>
        <div class="actions">
          <span class={`status ${status}`} data-testid="live-status">{STATUS_TEXT[status]}</span>
          <button type="button" class="quiet" onClick={async () => { await signOut(session); onSignedOut(); }}>Sign out</button>
        </div>
      </header>
      {failure && <p class="problem" role="alert">{failure}</p>}
      <div class="grid">
        <Panel title="Today's pickups" section={board?.today} testId="pickups">
          {(t) => <Bookings rows={t.pickups} when="startAt" empty="No pickups today." />}
        </Panel>
        <Panel title="Today's returns" section={board?.today} testId="returns">
          {(t) => <Bookings rows={t.returns} when="endAt" empty="No returns due today." />}
        </Panel>
        <Panel title="Bookings by state" section={board?.byState} testId="by-state">
          {(rows) => (
            <ul class="states">
              {rows.map((r) => (
                <li key={r.state} class={r.count ? '' : 'zero'}><span>{r.state.replaceAll('_', ' ')}</span><b>{r.count}{r.more ? '+' : ''}</b></li>
              ))}
            </ul>
          )}
        </Panel>
        <Panel title="Late rentals" section={board?.late} testId="late" alert={(l) => l.length > 0}>
          {(rows) => <Bookings rows={rows} when="endAt" empty="Nothing late." />}
        </Panel>
        <Panel title="Bookings in problem" section={board?.problem} testId="problem" alert={(l) => l.length > 0}>
          {(rows) => <Bookings rows={rows} when="startAt" empty="No booking in problem." />}
        </Panel>
        <Panel title="Open disputes" section={board?.disputes} testId="disputes" alert={(l) => l.length > 0}>
          {(rows) => rows.length === 0 ? <p class="empty">No open dispute.</p> : (
            <ul class="rows">
              {rows.map((d) => <li key={d.id}><code>{d.id}</code> <span class="pill">{d.state.replaceAll('_', ' ')}</span> {d.reason ?? ''} {d.bookingId && <code>{d.bookingId}</code>}</li>)}
            </ul>
          )}
        </Panel>
        <Panel title="Failing webhook endpoints" section={board?.webhooks} testId="webhooks" alert={(l) => l.length > 0}>
          {(rows) => rows.length === 0 ? <p class="empty">Every endpoint answers.</p> : (
            <ul class="rows">
              {rows.map((w) => (
                <li key={w.id}>
                  <div class="url">{w.url}</div>
                  <div class="sub">
                    {w.delivery.eventType} · attempt {w.delivery.attempt} · {w.delivery.responseStatus ? `HTTP ${w.delivery.responseStatus}` : (w.delivery.error ?? 'no answer')}
                    {w.delivery.nextRetryAt && <> · next try {time(w.delivery.nextRetryAt)}</>}
                  </div>
                  {writeWebhooks && <button type="button" class="write" onClick={async () => { await retryDelivery(session, w.id, w.delivery.id); void refresh(); }}>Retry now</button>}
                </li>
              ))}
            </ul>
          )}
        </Panel>
        <Panel title="Money today" section={board?.money} testId="money">
          {(m) => (
            <ul class="states">
              <li><span>collected</span><b>{money(m.grossCents, m.currency)}</b></li>
              <li><span>refunded</span><b>{money(m.refundsCents, m.currency)}</b></li>
              <li><span>net</span><b>{money(m.netCents, m.currency)}</b></li>
            </ul>
          )}
        </Panel>
        <Panel title="Connected apps" section={board?.apps} testId="apps">
          {(rows) => rows.length === 0 ? <p class="empty">No app is connected.</p> : (
            <ul class="rows">
              {rows.map((a) => (
                <li key={a.id} data-app-connection={a.id}>
                  <div class="url">{a.appName}</div>
                  <div class="sub">{a.scopes.join(', ')} · since {time(a.createdAt)}</div>
                  {writeBusiness && <button type="button" class="write" onClick={async () => { await disconnectApp(session, a.id); void refresh(); }}>Disconnect</button>}
                </li>
              ))}
            </ul>
          )}
        </Panel>
        <section class="card feed" data-testid="feed">
          <h2>Live events</h2>
          {!can(session, 'events:read') ? <p class="noaccess">No access</p> : feed.length === 0 ? <p class="empty">No events yet.</p> : (
            <ol>
              {feed.map((e) => (
                <li key={e.id} data-event-id={e.id} data-via={e.via}>
                  <time>{time(e.createdAt)}</time> <b>{e.type}</b> <code>{e.data.object?.id ?? ''}</code>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    </div>
  );
}

const STATUS_TEXT: Record<LiveStatus, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', signed_out: 'Signed out' };

function Panel<T>({ title, section, testId, alert, children }: { title: string; section: Section<T> | undefined; testId: string; alert?: (v: T) => boolean; children: (v: T) => ComponentChildren }) {
  const loaded = section !== undefined && section !== NO_ACCESS;
  const count = loaded && Array.isArray(section) ? ` (${section.length})` : '';
  return (
    <section class={`card ${loaded && alert?.(section) ? 'alert' : ''}`} data-testid={testId}>
      <h2>{title}{count}</h2>
      {section === undefined ? <p class="empty">Loading…</p> : section === NO_ACCESS ? <p class="noaccess">No access</p> : children(section)}
    </section>
  );
}

function Bookings({ rows, when, empty }: { rows: BookingRow[]; when: 'startAt' | 'endAt'; empty: string }) {
  if (rows.length === 0) return <p class="empty">{empty}</p>;
  return (
    <ul class="rows">
      {rows.map((b) => (
        <li key={b.id}>
          <time>{time(b[when])}</time> <b>{b.vehicle.name}</b> · {b.customer.name ?? '—'} <span class="pill">{b.state.replaceAll('_', ' ')}</span> <code>{b.id}</code>
        </li>
      ))}
    </ul>
  );
}

function time(iso: string): string {
  const d = new Date(iso);
  const sameDay = d.toDateString() === new Date().toDateString();
  return sameDay ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : d.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

function money(cents: number, currency: string): string {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
}
