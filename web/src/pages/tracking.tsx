/**
 * Open and click tracking of the project: the last 30 days' figures (people only, with the machine
 * hits left out counted beside them) and the settings (GET/PUT /v1/tracking).
 */
import { useState } from 'preact/hooks';
import { get, put } from '../api';
import { Link } from '../router';
import { Field, Form, PageHeader, Show, Stat, Status, useLoad, When } from '../ui';

interface Figures {
  delivered: number;
  unique_opens: number;
  unique_clicks: number;
  open_rate: number;
  click_rate: number;
  machine_opens: number;
  machine_clicks: number;
}

interface Settings {
  opens_enabled: boolean;
  clicks_enabled: boolean;
  retention_days: number;
  custom_domain: string | null;
  tracking_domain: string;
  dns: { status: string; target: string; reason: string | null; checked_at: string | null };
}

export function Tracking() {
  const load = useLoad(() => get<Settings>('/v1/tracking'), []);
  const figures = useLoad(() => get<Figures>('/v1/analytics?days=30'), []);
  return (
    <>
      <PageHeader title="Tracking" />
      <section aria-labelledby="figures-title">
        <h2 id="figures-title">Last 30 days</h2>
        <Show load={figures}>
          {(f) => (
            <>
              <dl class="stats">
                <Stat label="Delivered" value={f.delivered.toLocaleString('en')} />
                <Stat
                  label="Opened by people"
                  value={f.unique_opens.toLocaleString('en')}
                  note={`${(f.open_rate * 100).toFixed(1)}%`}
                />
                <Stat
                  label="Clicked by people"
                  value={f.unique_clicks.toLocaleString('en')}
                  note={`${(f.click_rate * 100).toFixed(1)}%`}
                />
                <Stat label="Machine opens left out" value={f.machine_opens.toLocaleString('en')} />
                <Stat label="Machine clicks left out" value={f.machine_clicks.toLocaleString('en')} />
              </dl>
              <p class="hint">
                Opens by privacy proxies and pre-fetchers and clicks by link scanners are not counted as
                people's; each message's timeline names who made a hit. Daily figures are in{' '}
                <Link to="/analytics">Analytics</Link>.
              </p>
            </>
          )}
        </Show>
      </section>
      <h2>Settings</h2>
      <Show load={load}>{(s) => <TrackingForm settings={s} onSaved={load.reload} />}</Show>
    </>
  );
}

function TrackingForm({ settings, onSaved }: { settings: Settings; onSaved: () => void }) {
  const [opens, setOpens] = useState(settings.opens_enabled);
  const [clicks, setClicks] = useState(settings.clicks_enabled);
  const [days, setDays] = useState(String(settings.retention_days));
  const [domain, setDomain] = useState(settings.custom_domain ?? '');
  const [saved, setSaved] = useState(false);
  return (
    <>
      <dl class="facts">
        <dt>Tracked links use</dt>
        <dd>
          <code>{settings.tracking_domain}</code>
        </dd>
        <dt>Custom domain</dt>
        <dd>
          {settings.custom_domain ? (
            <>
              <code>{settings.custom_domain}</code> <Status value={settings.dns.status} /> → point it at{' '}
              <code>{settings.dns.target}</code>
              {settings.dns.reason && <p class="hint">{settings.dns.reason}</p>}
              <p class="hint">
                Checked <When at={settings.dns.checked_at} />
              </p>
            </>
          ) : (
            <span class="muted">none</span>
          )}
        </dd>
      </dl>
      <Form
        label="Tracking settings"
        submit="Save settings"
        busy="Saving…"
        onSubmit={async () => {
          setSaved(false);
          await put('/v1/tracking', {
            opens_enabled: opens,
            clicks_enabled: clicks,
            retention_days: Number(days),
            ...(domain.trim() ? { custom_domain: domain.trim() } : {}),
          });
          setSaved(true);
          onSaved();
        }}
      >
        <fieldset>
          <legend>What to track</legend>
          <label class="check">
            <input type="checkbox" checked={opens} onChange={(e) => setOpens(e.currentTarget.checked)} />{' '}
            Opens (a pixel in HTML mail)
          </label>
          <label class="check">
            <input type="checkbox" checked={clicks} onChange={(e) => setClicks(e.currentTarget.checked)} />{' '}
            Clicks (links go through the tracking host)
          </label>
        </fieldset>
        <Field
          label="Keep opens and clicks for (days)"
          type="number"
          min={1}
          max={365}
          required
          value={days}
          onInput={(e) => setDays(e.currentTarget.value)}
        />
        <Field
          label="Custom tracking domain (optional)"
          placeholder="links.example.com"
          hint="A host under one of your domains with a CNAME to this server."
          value={domain}
          onInput={(e) => setDomain(e.currentTarget.value)}
        />
        {saved && (
          <p class="ok" role="status">
            Settings saved.
          </p>
        )}
      </Form>
    </>
  );
}
