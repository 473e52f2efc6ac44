import test from 'ava';
import { createWebhookSender, type ResolvedAddress } from '../../src/webhooks/sender.js';
import { startReceiver } from './receiver.js';

const request = (url: string, allowPrivate: boolean) => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: '{"hello":"world"}',
  timeoutMs: 2000,
  allowPrivate,
});

test('the connection goes to the address that was resolved and checked, once (no DNS rebinding)', async (t) => {
  const receiver = await startReceiver(t);
  const answers: ResolvedAddress[][] = [
    [{ address: '127.0.0.1', family: 4 }],
    [{ address: '10.9.9.9', family: 4 }],
  ];
  const asked: string[] = [];
  const send = createWebhookSender({
    lookup: async (hostname) => {
      asked.push(hostname);
      return answers.shift() ?? [];
    },
  });
  const result = await send(request(`http://hooks.rebind.test:${receiver.port}/hook`, true));
  t.is(result.status, 204, result.error ?? '');
  t.deepEqual(asked, ['hooks.rebind.test']);
  t.is(receiver.received.length, 1);
  t.is(receiver.received[0]!.headers.host, `hooks.rebind.test:${receiver.port}`);
  t.is(receiver.received[0]!.body, '{"hello":"world"}');
});

test('a host with any private address among its answers is refused before connecting', async (t) => {
  const send = createWebhookSender({
    lookup: async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ],
  });
  const result = await send(request('https://hooks.example.test/hook', false));
  t.is(result.status, null);
  t.is(
    result.error,
    'refused: hooks.example.test resolves to 169.254.169.254 (link-local or metadata); private targets need webhooks.allow_private_targets',
  );
});

test('network failures are reported, not thrown', async (t) => {
  const receiver = await startReceiver(t);
  await receiver.close();
  const send = createWebhookSender();
  const refused = await send(request(`http://127.0.0.1:${receiver.port}/`, true));
  t.is(refused.status, null);
  t.regex(refused.error ?? '', /ECONNREFUSED/);
  const unresolvable = await createWebhookSender({
    lookup: async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    },
  })(request('https://nowhere.invalid/', false));
  t.regex(unresolvable.error ?? '', /^could not resolve nowhere\.invalid: getaddrinfo ENOTFOUND/);
});

test('a redirect is a failure and is not followed', async (t) => {
  const receiver = await startReceiver(t);
  receiver.reply(() => ({ status: 302, headers: { location: 'http://169.254.169.254/' } }));
  const result = await createWebhookSender()(request(receiver.url, true));
  t.is(result.status, 302);
  t.is(receiver.received.length, 1);
});
