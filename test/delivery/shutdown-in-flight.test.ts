import type { Socket } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import SQLite from 'better-sqlite3';
import { SMTPServer } from 'smtp-server';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';
import { events, eventually, mx, send, settled, startDeliveryEnv } from './env.js';
import { readCommands, tarpit } from './tarpit.js';

interface SlowMx {
  /** Connections open now. */
  open: number;
  /** Messages received in full (the final dot arrived). */
  received: number;
  /** 250 replies written on a connection that was still open. */
  accepted: number;
  /** Replies that were due after the client had already gone. */
  goneBeforeReply: number;
}

/**
 * An MX that reads the whole message and answers the end of DATA only after `replyAfterMs` (a
 * provider doing slow checks before it takes responsibility, RFC 1047's synchronization gap). A
 * client that hangs up meanwhile never gets the 250, and the message is not counted as accepted.
 */
async function slowMx(t: ExecutionContext, host: string, port: number, replyAfterMs: number) {
  const state: SlowMx = { open: 0, received: 0, accepted: 0, goneBeforeReply: 0 };
  const closed = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback) {
      state.open += 1;
      callback();
    },
    onClose(session) {
      state.open -= 1;
      closed.add(session.id);
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        state.received += 1;
        setTimeout(() => {
          if (closed.has(session.id)) {
            state.goneBeforeReply += 1;
            callback(new Error('the client went away'));
          } else {
            state.accepted += 1;
            callback(null, 'OK: message queued');
          }
        }, replyAfterMs);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}

test('a transaction still waiting for its reply when the drain time ends is cut off, released, and sent again after a restart', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { drain_timeout: '500ms' } } });
  const replyAfterMs = 5000;
  const slow = await slowMx(t, '127.0.0.4', env.peer.port, replyAfterMs);
  mx(env.dns, 'slow.example', [{ host: 'mx.slow.example', ip: '127.0.0.4' }]);
  const id = await send(env, { to: ['ann@slow.example'] });
  await eventually('the MX to have the whole message', () => slow.received === 1);

  const stopping = Date.now();
  await env.ph.server.stop();
  t.true(Date.now() - stopping < 3000, 'stop() waited for the drain time, not for the reply');
  await eventually('the MX to see the connection closed', () => slow.open === 0, 1000);
  t.true(Date.now() - stopping < replyAfterMs, 'the connection was gone before the reply was due');

  // The reply comes due with nobody left to read it; nothing is written for the job afterwards.
  await eventually('the reply to come due', () => slow.goneBeforeReply + slow.accepted === 1, replyAfterMs);
  t.is(slow.accepted, 0, 'no 250 reached the engine after the job was released');
  const db = new SQLite(env.ph.server.kernel.store.file, { readonly: true });
  t.teardown(() => db.close());
  t.deepEqual(
    db.prepare('select state, locked_until, attempts from delivery_jobs where message_id = ?').all(id),
    [{ state: 'queued', locked_until: null, attempts: 0 }],
    'released for another try, as a job that was never sent',
  );
  t.deepEqual(
    (db.prepare('select type from events where message_id = ?').all(id) as { type: string }[]).map(
      (r) => r.type,
    ),
    ['email.sent'],
  );
  t.deepEqual(db.prepare('select * from delivery_attempts where message_id = ?').all(id), []);

  // At least once: after a restart the released job is delivered (here by a prompt MX).
  mx(env.dns, 'slow.example', [{ host: 'mx.slow.example', ip: '127.0.0.1' }]);
  const second = await startServer(
    testConfig(env.ph.dataDir, { dns: env.ph.config.dns, delivery: env.ph.config.delivery }),
    createLogger('silent'),
  );
  t.teardown(() => second.stop());
  t.is(
    await settled({ server: second } as unknown as Parameters<typeof settled>[0], id, 15_000),
    'delivered',
  );
  t.is(env.peer.messages.length, 1);
  t.deepEqual(
    events({ server: second } as unknown as Parameters<typeof events>[0], id).map((e) => e.type),
    ['email.sent', 'email.delivered'],
  );
});

test('a transaction that ends within the drain time is recorded, not released', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { drain_timeout: '3s' } } });
  const slow = await slowMx(t, '127.0.0.4', env.peer.port, 500);
  mx(env.dns, 'slow.example', [{ host: 'mx.slow.example', ip: '127.0.0.4' }]);
  const id = await send(env, { to: ['ann@slow.example'] });
  await eventually('the MX to have the whole message', () => slow.received === 1);
  await env.ph.server.stop();
  t.is(slow.accepted, 1);
  const db = new SQLite(env.ph.server.kernel.store.file, { readonly: true });
  t.teardown(() => db.close());
  t.deepEqual(db.prepare('select state, attempts from delivery_jobs where message_id = ?').all(id), [
    { state: 'done', attempts: 1 },
  ]);
  t.deepEqual(
    (db.prepare('select type from events where message_id = ?').all(id) as { type: string }[]).map(
      (r) => r.type,
    ),
    ['email.sent', 'email.delivered'],
  );
  await eventually('the connection to be closed after the transaction', () => slow.open === 0, 1000);
});

test('a connection still waiting for its greeting is dropped when the engine stops', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { smtp_timeout: '20s', drain_timeout: '500ms' } },
  });
  const sockets = await tarpit(t, '127.0.0.3', env.peer.port);
  mx(env.dns, 'stalled.example', [{ host: 'mx.stalled.example', ip: '127.0.0.3' }]);
  const id = await send(env, { to: ['ann@stalled.example'] });
  await eventually('the engine to connect', () => sockets.size === 1);
  const stopping = Date.now();
  await env.ph.server.stop();
  await eventually('the connection to be closed', () => sockets.size === 0, 3000);
  t.true(Date.now() - stopping < 5000, 'closed at the stop, not at the greeting timeout');
  const db = new SQLite(env.ph.server.kernel.store.file, { readonly: true });
  t.teardown(() => db.close());
  t.deepEqual(
    db.prepare('select state, locked_until, attempts from delivery_jobs where message_id = ?').all(id),
    [{ state: 'queued', locked_until: null, attempts: 0 }],
  );
});

/**
 * A minimal MX that accepts every message but never answers QUIT (a slow goodbye), reporting how
 * many connections are open.
 */
function mutedAtQuit(t: ExecutionContext, host: string, port: number): Promise<ReadonlySet<Socket>> {
  return tarpit(t, host, port, (socket) => {
    socket.write('220 mx.muted.example ESMTP\r\n');
    readCommands(socket, {
      message: () => socket.write('250 2.0.0 queued\r\n'),
      command: (line) => {
        if (line.startsWith('EHLO')) socket.write('250-mx.muted.example\r\n250 PIPELINING\r\n');
        else if (line.startsWith('DATA')) socket.write('354 go ahead\r\n');
        else if (line.startsWith('QUIT')) {
          // No answer: the client waits for a 221 that never comes.
        } else socket.write('250 2.0.0 ok\r\n');
      },
    });
  });
}

test('a connection closed with QUIT before the stop does not outlive it waiting for the 221', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: {
      delivery: {
        smtp_timeout: '60s',
        drain_timeout: '500ms',
        lanes: [{ name: 'default', messages_per_connection: 1 } as never],
      },
    },
  });
  const sockets = await mutedAtQuit(t, '127.0.0.5', env.peer.port);
  mx(env.dns, 'muted.example', [{ host: 'mx.muted.example', ip: '127.0.0.5' }]);
  const id = await send(env, { to: ['ann@muted.example'] });
  // One message per connection: after its 250 the pool says QUIT, which the MX leaves unanswered.
  t.is(await settled(env.ph, id), 'delivered');
  t.is(sockets.size, 1);
  const stopping = Date.now();
  await env.ph.server.stop();
  await eventually('the connection to be closed', () => sockets.size === 0, 3000);
  t.true(Date.now() - stopping < 5000, 'closed at the stop, not at the SMTP timeout');
});
