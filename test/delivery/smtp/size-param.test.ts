/**
 * RFC 1870 §3: the SIZE= parameter of MAIL FROM declares the message's octets, CRLFs included, but
 * not the dots that transparency (RFC 5321 §4.5.2) adds in DATA nor the final dot. A server that
 * compares the declared size with what it received sees exactly the message.
 */
import test from 'ava';
import { mx, send, settled, startDeliveryEnv } from '../env.js';

test('SIZE= on MAIL FROM is the size of the message, not of its dot-stuffed DATA', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  // Lines that start with "." in both parts: the style sheet's rules, and the text's.
  const id = await send(env, {
    to: ['ann@example.net'],
    html: '<style>\n.btn{color:red}\n.note{margin:0}\n</style>\n<p>Hello</p>',
    text: 'Hello\n.one\n..two\n.\nend',
  });
  t.is(await settled(env.ph, id), 'delivered');

  const [message] = env.peer.messages;
  if (message === undefined) return t.fail('the MX received nothing');
  t.true(message.data.includes('\r\n.btn{color:red}'), 'lines starting with a dot arrived (unstuffed)');
  t.is(message.mailFromParams.SIZE, String(message.data.length), 'SIZE= is what the MX received');
});
