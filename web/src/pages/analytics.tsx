/** The report of GET /v1/analytics: totals, rates, the daily series and providers, drawn as SVG here. */
import { useState } from 'preact/hooks';
import { get } from '../api';
import { Empty, PageHeader, Select, Show, Stat, Table, useLoad } from '../ui';

interface Day {
  day: string;
  accepted: number;
  queued: number;
  delivered: number;
  bounced: number;
  deferred: number;
  complained: number;
}
interface Provider {
  provider: string;
  total: number;
  delivered: number;
  bounced: number;
  deferred: number;
  complained: number;
  median_delivery_latency_ms: number;
  delivery_rate: number;
}
interface Report {
  days: number;
  sent: number;
  delivered: number;
  bounced: number;
  deferred: number;
  complained: number;
  delivery_rate: number;
  bounce_rate: number;
  complaint_rate: number;
  unique_opens?: number;
  unique_clicks?: number;
  open_rate?: number;
  click_rate?: number;
  machine_opens?: number;
  machine_clicks?: number;
  median_delivery_latency_ms?: number;
  daily: Day[];
  providers: Provider[];
}

const SERIES: ReadonlyArray<[keyof Day, string]> = [
  ['delivered', 'Delivered'],
  ['deferred', 'Deferred'],
  ['bounced', 'Bounced'],
  ['complained', 'Complained'],
];

const pct = (n: number | undefined) => (n === undefined ? '—' : `${(n * 100).toFixed(1)}%`);
const num = (n: number | undefined) => (n === undefined ? '—' : n.toLocaleString('en'));

export function Analytics() {
  const [days, setDays] = useState('30');
  const load = useLoad(() => get<Report>(`/v1/analytics?days=${days}`), [days]);
  return (
    <>
      <PageHeader title="Analytics">
        <Select
          label="Period"
          value={days}
          options={[
            ['7', 'Last 7 days'],
            ['30', 'Last 30 days'],
            ['90', 'Last 90 days'],
          ]}
          onChange={(e) => setDays(e.currentTarget.value)}
        />
      </PageHeader>
      <Show load={load}>
        {(r) => (
          <>
            <dl class="stats">
              <Stat label="Sent" value={num(r.sent)} />
              <Stat label="Delivered" value={num(r.delivered)} note={pct(r.delivery_rate)} />
              <Stat label="Bounced" value={num(r.bounced)} note={pct(r.bounce_rate)} />
              <Stat label="Complaints" value={num(r.complained)} note={pct(r.complaint_rate)} />
              <Stat label="Unique opens" value={num(r.unique_opens)} note={pct(r.open_rate)} />
              <Stat label="Unique clicks" value={num(r.unique_clicks)} note={pct(r.click_rate)} />
              <Stat label="Machine opens left out" value={num(r.machine_opens)} />
              <Stat label="Machine clicks left out" value={num(r.machine_clicks)} />
              <Stat
                label="Median delivery"
                value={
                  r.median_delivery_latency_ms === undefined
                    ? '—'
                    : `${(r.median_delivery_latency_ms / 1000).toFixed(1)} s`
                }
              />
            </dl>
            <section aria-labelledby="daily-title" class="card">
              <h2 id="daily-title">Daily</h2>
              {r.sent === 0 && r.daily.every((d) => d.accepted === 0) ? (
                <Empty title="Nothing sent in this period." />
              ) : (
                <DailyChart daily={r.daily} />
              )}
              <details>
                <summary>The numbers as a table</summary>
                <Table caption="Daily counts" head={['Day', 'Accepted', ...SERIES.map(([, l]) => l)]}>
                  {r.daily.map((d) => (
                    <tr key={d.day}>
                      <td class="nowrap">{d.day}</td>
                      <td>{num(d.accepted)}</td>
                      {SERIES.map(([k]) => (
                        <td key={k}>{num(d[k] as number)}</td>
                      ))}
                    </tr>
                  ))}
                </Table>
              </details>
            </section>
            <section aria-labelledby="providers-title" class="card">
              <h2 id="providers-title">Providers</h2>
              {r.providers.length === 0 ? (
                <Empty title="No deliveries in this period." />
              ) : (
                <Table
                  caption="Providers"
                  head={[
                    'Provider',
                    'Total',
                    'Delivery rate',
                    'Bounced',
                    'Deferred',
                    'Complaints',
                    'Median latency',
                  ]}
                >
                  {r.providers.map((p) => (
                    <tr key={p.provider}>
                      <td>{p.provider}</td>
                      <td>{num(p.total)}</td>
                      <td>
                        <span class="bar" aria-hidden="true">
                          <span class="bar-fill" style={{ width: `${Math.round(p.delivery_rate * 100)}%` }} />
                        </span>{' '}
                        {pct(p.delivery_rate)}
                      </td>
                      <td>{num(p.bounced)}</td>
                      <td>{num(p.deferred)}</td>
                      <td>{num(p.complained)}</td>
                      <td>{(p.median_delivery_latency_ms / 1000).toFixed(1)} s</td>
                    </tr>
                  ))}
                </Table>
              )}
            </section>
          </>
        )}
      </Show>
    </>
  );
}

/** Stacked daily bars: delivered, deferred, bounced, complained. */
function DailyChart({ daily }: { daily: Day[] }) {
  const width = 760;
  const height = 220;
  const pad = { left: 44, right: 8, top: 10, bottom: 28 };
  const max = Math.max(1, ...daily.map((d) => SERIES.reduce((sum, [k]) => sum + (d[k] as number), 0)));
  const step = (width - pad.left - pad.right) / Math.max(daily.length, 1);
  const y = (v: number) => ((height - pad.top - pad.bottom) * v) / max;
  const ticks = [0, 0.5, 1].map((f) => Math.round(max * f));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="daily-chart-title">
        <title id="daily-chart-title">
          Daily outcomes over {daily.length} days; the highest day had {max.toLocaleString('en')} recipients.
        </title>
        {ticks.map((t) => (
          <g key={t}>
            <line
              class="grid"
              x1={pad.left}
              x2={width - pad.right}
              y1={height - pad.bottom - y(t)}
              y2={height - pad.bottom - y(t)}
            />
            <text class="axis" x={pad.left - 6} y={height - pad.bottom - y(t) + 4} text-anchor="end">
              {t.toLocaleString('en')}
            </text>
          </g>
        ))}
        {daily.map((d, i) => {
          let base = height - pad.bottom;
          return (
            <g key={d.day}>
              {SERIES.map(([k]) => {
                const h = y(d[k] as number);
                base -= h;
                return h > 0 ? (
                  <rect
                    key={k}
                    class={`s-${k}`}
                    x={pad.left + i * step + 1}
                    y={base}
                    width={Math.max(step - 2, 1)}
                    height={h}
                  />
                ) : null;
              })}
              {(i === 0 || i === daily.length - 1 || i % Math.ceil(daily.length / 6) === 0) && (
                <text class="axis" x={pad.left + i * step + step / 2} y={height - 8} text-anchor="middle">
                  {d.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {SERIES.map(([k, label]) => (
          <span key={k}>
            <span class={`swatch s-${k}`} aria-hidden="true" /> {label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
