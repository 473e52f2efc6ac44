/**
 * The order of a stop (SIGTERM): the delivery engine stops claiming the moment the stop begins and
 * drains its transactions while the HTTP API and the inbound SMTP listener close, so the waits
 * overlap instead of adding up past the unit's TimeoutStopSec (after which systemd kills the
 * process and leased jobs are sent again after their lease).
 */
import { request } from 'node:http';
import type { Socket } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import SQLite from 'better-sqlite3';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { requireClamd } from '../helpers/clamd.js';
import { type Posthorn, testConfig } from '../helpers/server.js';
import { openSmtp } from '../inbound/smtp-client.js';
import { eventually, FROM, mx, send, settled, startDeliveryEnv } from './env.js';
import { readCommands, tarpit } from './tarpit.js';

/**
 * A POST /v1/emails from a slow client: `started` resolves once the server is handling the request
 * (its 100 Continue), and the last byte of the body goes only when `finish()` is called, so the
 * request is in flight until then (or until the stop cuts it off). `response` resolves with the status and body.
 */
function trickledSend(ph: Posthorn, to: string) {
  const body = Buffer.from(JSON.stringify({ from: FROM, to: [to], subject: 'Hello', text: 'Hello there' }));
  const req = request(new URL('/v1/emails', ph.url), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ph.owner.apiKey}`,
      'content-type': 'application/json',
      'content-length': String(body.length),
      expect: '100-continue',
    },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
  });
  // A request the stop cut off after shutdown_timeout fails, and only a test that awaits it cares.
  response.catch(() => {});
  const started = new Promise<void>((resolve) => {
    req.on('continue', () => {
      req.write(body.subarray(0, body.length - 1), () => resolve());
    });
  });
  req.flushHeaders();
  return {
    started,
    response,
    finish: () => req.end(body.subarray(body.length - 1)),
  };
}

/** An MX that takes the whole message and never answers the end of DATA; the set holds its open connections. */
function silentAtDataEnd(t: ExecutionContext, host: string, port: number): Promise<ReadonlySet<Socket>> {
  return tarpit(t, host, port, (socket) => {
    socket.write('220 mx.silent.example ESMTP\r\n');
    readCommands(socket, {
      message: () => {},
      command: (line) => {
        if (line.startsWith('EHLO')) socket.write('250-mx.silent.example\r\n250 PIPELINING\r\n');
        else if (line.startsWith('DATA')) socket.write('354 go ahead\r\n');
        else socket.write('250 2.0.0 ok\r\n');
      },
    });
  });
}

function readonlyDb(t: ExecutionContext, ph: Posthorn): SQLite.Database {
  const db = new SQLite(ph.server.kernel.store.file, { readonly: true });
  t.teardown(() => db.close());
  return db;
}

test('a send accepted while the HTTP API drains at shutdown is not claimed: it waits for the next start', async (t) => {
  const env = await startDeliveryEnv(t, { config: { server: { shutdown_timeout: '3s' } } });
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  // One slow client holds the HTTP API open for all of shutdown_timeout; another's send completes
  // just after the stop began.
  const holding = trickledSend(env.ph, 'held@example.net');
  const late = trickledSend(env.ph, 'ann@example.net');
  await Promise.all([holding.started, late.started]);

  const stopping = env.ph.server.stop();
  late.finish();
  const accepted = await late.response;
  t.is(accepted.status, 202, 'a request in flight at the stop still completes');
  await stopping;

  const id = (JSON.parse(accepted.body) as { id: string }).id;
  t.is(env.peer.messages.length, 0, 'nothing was sent once the stop began');
  t.deepEqual(
    readonlyDb(t, env.ph)
      .prepare('select state, locked_until, attempts from delivery_jobs where message_id = ?')
      .all(id),
    [{ state: 'queued', locked_until: null, attempts: 0 }],
    'never claimed, so never leased',
  );

  const second = await startServer(
    testConfig(env.ph.dataDir, { dns: env.ph.config.dns, delivery: env.ph.config.delivery }),
    createLogger('silent'),
  );
  t.teardown(() => second.stop());
  t.is(await settled({ server: second } as unknown as Posthorn, id, 15_000), 'delivered');
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [['ann@example.net']],
  );
});

test('a stop takes the longest of the HTTP, inbound SMTP and delivery waits, not their sum', async (t) => {
  const clamd = await requireClamd();
  const env = await startDeliveryEnv(t, {
    config: {
      server: { shutdown_timeout: '3s' },
      delivery: { drain_timeout: '3s', smtp_timeout: '60s' },
      smtp_in: { enabled: true, listen: '127.0.0.1:0' },
      clamav: { host: clamd.host, port: clamd.port },
    },
  });
  const sockets = await silentAtDataEnd(t, '127.0.0.4', env.peer.port);
  mx(env.dns, 'silent.example', [{ host: 'mx.silent.example', ip: '127.0.0.4' }]);
  const id = await send(env, { to: ['ann@silent.example'] });
  await eventually('the MX to hold the transaction', () => sockets.size === 1);
  // An HTTP request and an inbound SMTP session in flight, each held for all of shutdown_timeout.
  const holding = trickledSend(env.ph, 'held@example.net');
  await holding.started;
  const session = await openSmtp((await env.ph.server.services.inbound.ready()).port);
  t.teardown(() => session.end());
  t.is((await session.command('EHLO client.example')).code, 250);

  const started = Date.now();
  const stopping = env.ph.server.stop();
  await eventually('the delivery transaction to be cut off', () => sockets.size === 0, 10_000);
  const cutAfter = Date.now() - started;
  await stopping;
  const stoppedAfter = Date.now() - started;

  t.true(
    cutAfter < 6000,
    `the transaction was cut off after drain_timeout (${cutAfter} ms), not after HTTP and SMTP closed`,
  );
  t.true(stoppedAfter < 7500, `the stop took ${stoppedAfter} ms: the three 3 s waits overlapped`);
  t.deepEqual(
    readonlyDb(t, env.ph)
      .prepare('select state, locked_until, attempts from delivery_jobs where message_id = ?')
      .all(id),
    [{ state: 'queued', locked_until: null, attempts: 0 }],
    'released for the next start',
  );
});
