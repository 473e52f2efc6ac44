import test from 'ava';
import { reachOf } from '../../src/platform/config/public-identity.js';

test('names and addresses are public, local to this host, or special-use', (t) => {
  const cases: Array<[string, 'local' | 'special' | 'public']> = [
    ['localhost', 'local'],
    ['mail.localhost', 'local'],
    ['mailhost', 'local'],
    ['127.0.0.1', 'local'],
    ['127.8.9.1', 'local'],
    ['::1', 'local'],
    ['::ffff:127.0.0.1', 'local'],
    ['0.0.0.0', 'local'],
    ['mta.posthorn.test', 'special'],
    ['mx.corp.internal', 'special'],
    ['mail.example.com', 'special'],
    ['printer.local', 'special'],
    ['10.1.2.3', 'special'],
    ['192.168.1.10', 'special'],
    ['100.64.0.1', 'special'],
    ['192.0.2.10', 'special'],
    ['fd00::25', 'special'],
    ['2001:db8::25', 'special'],
    ['mta.posthorn.dev', 'public'],
    ['Mail.Example.Org.uk', 'public'],
    ['203.0.114.5', 'public'],
    ['2a01:4f8::25', 'public'],
  ];
  for (const [value, kind] of cases) t.is(reachOf(value).kind, kind, value);
});
