import test from 'ava';
import { truncateIp } from '../../src/tracking/classify/networks.js';
import { classify, type HitFacts } from '../../src/tracking/classify/rules.js';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const GMAIL = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const YAHOO = 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html';
const WINDOW = 3000;
const base: HitFacts = {
  kind: 'open',
  method: 'GET',
  userAgent: CHROME,
  ip: '198.51.100.7',
  at: 100_000,
  deliveredAt: 10_000,
};

const cases: [string, Partial<HitFacts>, boolean, string | null, string | null][] = [
  ['a browser opening a minute after delivery is a person', {}, false, null, null],
  ["Apple's bare agent is Mail Privacy Protection", { userAgent: 'Mozilla/5.0' }, true, 'apple_mpp', 'apple'],
  [
    "a robot from Apple's network is the proxy too",
    { userAgent: 'curl/8.5', ip: '17.58.1.2' },
    true,
    'apple_mpp',
    'apple',
  ],
  ["a browser on Apple's network is a person", { ip: '17.58.1.2' }, false, null, null],
  ["Gmail's image proxy hides a person", { userAgent: GMAIL, ip: '66.249.84.1' }, false, null, 'gmail'],
  ["Yahoo's image proxy hides a person", { userAgent: YAHOO }, false, null, 'yahoo'],
  ['HEAD is a pre-fetch', { method: 'HEAD' }, true, 'head_request', null],
  ['no agent is a machine', { userAgent: undefined }, true, 'no_user_agent', null],
  ['a security gateway agent', { userAgent: 'Barracuda Sentinel (EE)' }, true, 'bot_agent', null],
  ['a robot agent', { userAgent: 'python-requests/2.31.0' }, true, 'bot_agent', null],
  ["a gateway's network", { ip: '205.139.110.14' }, true, 'security_gateway', null],
  ['an open a second after delivery', { at: 11_000 }, true, 'soon_after_delivery', null],
  ['a hit before delivery was recorded', { at: 9_000 }, true, 'soon_after_delivery', null],
  ['no delivery time known: timing does not decide', { deliveredAt: null, at: 10 }, false, null, null],
  ['a click of every link at once', { kind: 'click', allLinksAtOnce: true }, true, 'all_links_at_once', null],
  ['a click by a person', { kind: 'click', allLinksAtOnce: false }, false, null, null],
  [
    "Apple's bare agent clicking is a robot, not the image proxy",
    { kind: 'click', userAgent: 'Mozilla/5.0' },
    true,
    'bot_agent',
    null,
  ],
];

for (const [title, facts, machine, reason, proxy] of cases) {
  test(`classification: ${title}`, (t) => {
    const verdict = classify({ ...base, ...facts }, WINDOW);
    t.like(verdict, { machine, reason, proxy });
  });
}

test('client addresses are kept only truncated: IPv4 to /24, IPv6 to /48', (t) => {
  t.is(truncateIp('203.0.113.77'), '203.0.113.0/24');
  t.is(truncateIp('::ffff:203.0.113.77'), '203.0.113.0/24');
  t.is(truncateIp('2001:db8:1234:5678::1'), '2001:db8:1234::/48');
  t.is(truncateIp('2001:db8::1'), '2001:db8::/48');
  t.is(truncateIp('::1'), '::/48');
  t.is(truncateIp(null), null);
});
