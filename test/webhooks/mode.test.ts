/**
 * Webhook endpoints have a mode, as Stripe's test-mode and live-mode endpoints: an endpoint takes
 * the mode of the key that created it, receives the events of that mode's messages (and events
 * about no message, such as `domain.created`), and only keys of its mode see it.
 */
import test from 'ava';
import { verifiedDomain } from '../emails/helpers.js';
import { startPosthorn } from '../helpers/server.js';
import { createEndpoint } from './helpers.js';
import { startReceiver } from './receiver.js';

const open = { allow_http: true, allow_private_targets: true };

async function setup(t: import('ava').ExecutionContext) {
  const ph = await startPosthorn(t, { webhooks: open });
  verifiedDomain(ph);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const liveKey = ph.owner.apiKey;
  return { ph, testKey, liveKey };
}

test('an endpoint takes the mode of the key that created it, and the other mode’s keys find it absent', async (t) => {
  const { ph, testKey, liveKey } = await setup(t);
  const hook = await startReceiver(t);
  const created = await ph.request('POST', '/v1/webhooks', {
    key: testKey,
    body: { url: hook.url, events: ['*'] },
  });
  t.is(created.status, 201, created.text);
  t.is(created.body.mode, 'test');
  const liveOne = await createEndpoint(ph, hook.url, ['*'], liveKey);
  const id: string = created.body.id;

  const list = async (key: string) =>
    ((await ph.request('GET', '/v1/webhooks', { key })).body.data as { id: string; mode: string }[]).map(
      (e) => `${e.id} ${e.mode}`,
    );
  t.deepEqual(await list(testKey), [`${id} test`]);
  t.deepEqual(await list(liveKey), [`${liveOne.id} live`]);
  t.is((await ph.request('GET', `/v1/webhooks/${id}`, { key: testKey })).body.mode, 'test');

  // Every route answers for the other mode's endpoint exactly as for one that does not exist.
  const absent = 'wh_01JD3Q8Z9V6W1R2T3Y4U5I6O7P';
  const routes: [string, (endpoint: string) => string, Record<string, unknown>?][] = [
    ['GET', (e) => `/v1/webhooks/${e}`],
    ['PATCH', (e) => `/v1/webhooks/${e}`, { description: 'mine now' }],
    ['POST', (e) => `/v1/webhooks/${e}/rotate-secret`],
    ['GET', (e) => `/v1/webhooks/${e}/deliveries`],
    ['GET', (e) => `/v1/webhooks/${e}/deliveries/whd_01JD3Q8Z9V6W1R2T3Y4U5I6O7P`],
    ['POST', (e) => `/v1/webhooks/${e}/deliveries/whd_01JD3Q8Z9V6W1R2T3Y4U5I6O7P/replay`],
    ['DELETE', (e) => `/v1/webhooks/${e}`],
  ];
  for (const [method, path, body] of routes) {
    const options = body ? { key: liveKey, body } : { key: liveKey };
    const other = await ph.request(method, path(id), options);
    const none = await ph.request(method, path(absent), options);
    t.is(other.status, 404, `${method} ${path(id)}: ${other.text}`);
    t.is(other.text.replaceAll(id, absent), none.text, `${method} ${path(id)}`);
  }
  // The live key's DELETE left it: the test key still has it, unchanged.
  const still = await ph.request('GET', `/v1/webhooks/${id}`, { key: testKey });
  t.is(still.status, 200);
  t.is(still.body.description, null);
  t.is((await ph.request('DELETE', `/v1/webhooks/${id}`, { key: testKey })).status, 204);
});
