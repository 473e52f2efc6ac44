import test from 'ava';
import { send, startDeliveryEnv } from '../delivery/env.js';
import { tarpit } from '../delivery/tarpit.js';
import { eventually } from './helpers.js';

test('a stalled MX degrades delivery, which opens an automatic incident, and recovery resolves it once the deferrals stop', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: {
      // The stalled mail gives up after 4 s (it bounces): no more deferred attempts after that.
      delivery: { smtp_timeout: '500ms', connect_timeout: '500ms', retry_schedule: ['300ms'], max_age: '4s' },
      status: {
        check_interval: '100ms',
        auto_incident_after: '1s',
        auto_resolve_after: '500ms',
        deferral_window: '2s',
        deferral_min_attempts: 1,
      },
    },
  });
  // The recipient's MX accepts connections and never says a word.
  await tarpit(t, '127.0.0.2', env.peer.port);
  env.dns.set('stalled.test', 'MX', [{ preference: 10, exchange: 'mx.stalled.test' }]);
  env.dns.set('mx.stalled.test', 'A', ['127.0.0.2'], { ttl: 1 });
  await send(env, { to: ['ann@stalled.test'] });

  const status = async () => (await env.ph.request('GET', '/v1/status', { key: null })).body;
  const opened = await eventually(
    async () => {
      const body = await status();
      const incident = body.incidents.find(
        (i: { automatic: boolean; components: string[] }) => i.automatic && i.components[0] === 'delivery',
      );
      return incident ? { body, incident } : undefined;
    },
    'an automatic incident about delivery',
    20_000,
  );
  t.is(opened.incident.state, 'investigating');
  t.is(opened.incident.impact, 'partial_outage', 'every attempt on the lane was deferred');
  t.regex(opened.incident.updates[0].message, /deferred/);
  const delivery = opened.body.components.find((c: { id: string }) => c.id === 'delivery');
  t.is(delivery.status, 'partial_outage');

  const resolved = await eventually(
    async () => {
      const body = await status();
      const incident = body.history.data.find((i: { id: string }) => i.id === opened.incident.id);
      return incident?.state === 'resolved' ? { body, incident } : undefined;
    },
    'the automatic incident resolved',
    20_000,
  );
  t.truthy(resolved.incident.resolved_at);
  t.regex(resolved.incident.updates[0].message, /resolved automatically/);
  t.is(resolved.body.components.find((c: { id: string }) => c.id === 'delivery').status, 'operational');
});
