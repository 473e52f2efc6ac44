/**
 * A server that advertises STARTTLS and then fails it (RFC 3207): under the opportunistic policy
 * the message goes in plaintext on a new connection at once (RFC 7435), as docs/decisions/delivery.md documents;
 * under `require` it waits.
 */
import type { Socket } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { events, eventually, mx, send, settled, startDeliveryEnv } from '../env.js';
import { readCommands, tarpit } from '../tarpit.js';

interface BrokenTlsMx {
  /** Connections accepted so far. */
  connections: number;
  /** Messages accepted, with whether STARTTLS had been asked for on their connection. */
  readonly messages: { readonly afterStarttls: boolean }[];
}

/** An MX that offers STARTTLS, answers 220 to it and then speaks no TLS at all (a broken TLS stack). */
async function brokenTlsMx(t: ExecutionContext, host: string, port: number): Promise<BrokenTlsMx> {
  const state: BrokenTlsMx = { connections: 0, messages: [] };
  await tarpit(t, host, port, (socket) => {
    state.connections += 1;
    let starttls = false;
    socket.write('220 mx.broken-tls.example ESMTP\r\n');
    readCommands(socket, {
      bypass: () => {
        if (starttls) reply(socket, 'this is not a TLS record\r\n', true);
        return starttls;
      },
      message: () => {
        state.messages.push({ afterStarttls: starttls });
        socket.write('250 2.0.0 queued\r\n');
      },
      command: (line) => {
        if (line.startsWith('EHLO')) socket.write('250-mx.broken-tls.example\r\n250 STARTTLS\r\n');
        else if (line.startsWith('STARTTLS')) {
          starttls = true;
          socket.write('220 2.0.0 ready to start TLS\r\n');
        } else if (line.startsWith('DATA')) socket.write('354 go ahead\r\n');
        else if (line.startsWith('QUIT')) reply(socket, '221 bye\r\n', true);
        else socket.write('250 2.0.0 ok\r\n');
      },
    });
  });
  return state;
}

function reply(socket: Socket, text: string, end: boolean): void {
  socket.write(text);
  if (end) socket.end();
}

test('a failed STARTTLS handshake is followed at once by delivery in plaintext (opportunistic)', async (t) => {
  const env = await startDeliveryEnv(t);
  const broken = await brokenTlsMx(t, '127.0.0.6', env.peer.port);
  mx(env.dns, 'broken-tls.example', [{ host: 'mx.broken-tls.example', ip: '127.0.0.6' }]);
  const id = await send(env, { to: ['ann@broken-tls.example'] });

  t.is(await settled(env.ph, id), 'delivered');
  t.deepEqual(
    events(env.ph, id).map((e) => e.type),
    ['email.sent', 'email.delivered'],
  );
  t.is(events(env.ph, id)[1]?.data.delivery.tls, false);
  t.deepEqual(
    broken.messages,
    [{ afterStarttls: false }],
    'sent once, on a connection that never asked for TLS',
  );
  t.is(broken.connections, 2);
});

test('a failed STARTTLS handshake defers the message when the lane requires TLS', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { lanes: [{ name: 'default', tls: 'require' } as never] } },
  });
  const broken = await brokenTlsMx(t, '127.0.0.6', env.peer.port);
  mx(env.dns, 'broken-tls.example', [{ host: 'mx.broken-tls.example', ip: '127.0.0.6' }]);
  const id = await send(env, { to: ['ann@broken-tls.example'] });

  const delayed = await eventually('the deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.like(delayed.data.delay, { category: 'tls', status: '4.7.5' });
  t.deepEqual(broken.messages, [], 'nothing was sent in plaintext');
});
