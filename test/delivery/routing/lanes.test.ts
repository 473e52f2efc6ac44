import test from 'ava';
import { builtInLanes, createLaneTable, mergeLanes } from '../../../src/delivery/routing/lanes.js';
import { type LaneConfig, newLaneDefaults } from '../../../src/platform/config/schema.js';
import { deliverySection } from '../../../src/platform/config/sections/delivery.js';

function lane(fields: Partial<LaneConfig> & Pick<LaneConfig, 'name'>): LaneConfig {
  return {
    traffic: 'transactional',
    mx_suffixes: [],
    max_connections: 8,
    messages_per_connection: 50,
    rate_per_second: 50,
    connections_per_mx: 4,
    tls: '',
    ...fields,
  };
}

const table = createLaneTable();

// [MX host, lane]
const hosts: readonly [string, string][] = [
  ['gmail-smtp-in.l.google.com', 'gmail'],
  ['aspmx.l.google.com.', 'gmail'],
  ['ALT1.ASPMX.L.GOOGLE.COM', 'gmail'],
  ['gmail-smtp-in.l.googlemail.com', 'gmail'],
  ['google.com', 'gmail'],
  ['contoso-com.mail.protection.outlook.com', 'outlook'],
  ['hotmail-com.olc.protection.outlook.com', 'outlook'],
  ['mx1.hotmail.com', 'outlook'],
  ['mta5.am0.yahoodns.net', 'yahoo'],
  ['mx-eu.mail.am0.yahoodns.net.', 'yahoo'],
  ['mx01.mail.icloud.com', 'icloud'],
  ['mx.me.com', 'icloud'],
  ['mx.example.com', 'default'],
  ['evilgoogle.com', 'default'],
  ['google.com.evil.test', 'default'],
  ['notoutlook.com', 'default'],
  ['', 'default'],
];

for (const [host, expected] of hosts) {
  test(`MX host ${JSON.stringify(host)} goes to the ${expected} lane`, (t) => {
    t.is(table.laneFor(host, 'transactional').name, expected);
    t.is(table.laneFor(host, 'marketing').name, expected);
  });
}

test('each traffic class has its own gmail, outlook, yahoo, icloud and default lanes', (t) => {
  for (const traffic of ['transactional', 'marketing'] as const) {
    t.deepEqual(
      table.lanes(traffic).map((l) => l.name),
      ['gmail', 'outlook', 'yahoo', 'icloud', 'default'],
    );
    t.true(table.lanes(traffic).every((l) => l.traffic === traffic));
  }
});

test('marketing lanes get a smaller budget than transactional ones', (t) => {
  const transactional = table.laneFor('aspmx.l.google.com', 'transactional');
  const marketing = table.laneFor('aspmx.l.google.com', 'marketing');
  t.not(transactional, marketing);
  t.true(marketing.rate_per_second < transactional.rate_per_second);
  t.true(marketing.max_connections < transactional.max_connections);
});

test('the built-in lanes cannot be changed by a caller', (t) => {
  t.true(Object.isFrozen(builtInLanes));
  t.true(Object.isFrozen(builtInLanes[0]));
});

test('a configured lane replaces the built-in of the same name and traffic only', (t) => {
  const custom = createLaneTable([lane({ name: 'gmail', mx_suffixes: ['google.com'], rate_per_second: 3 })]);
  t.is(custom.laneFor('aspmx.l.google.com', 'transactional').rate_per_second, 3);
  // Not googlemail.com any more: the configured suffixes replace the built-in ones.
  t.is(custom.laneFor('gmail-smtp-in.l.googlemail.com', 'transactional').name, 'default');
  t.not(custom.laneFor('aspmx.l.google.com', 'marketing').rate_per_second, 3);
});

test('a configured lane without MX suffixes keeps the built-in ones', (t) => {
  const custom = createLaneTable([lane({ name: 'yahoo', traffic: 'marketing', rate_per_second: 1 })]);
  const chosen = custom.laneFor('mta5.am0.yahoodns.net', 'marketing');
  t.is(chosen.rate_per_second, 1);
  t.deepEqual(chosen.mx_suffixes, ['yahoodns.net', 'yahoo.com']);
});

test('a configured default lane replaces the built-in default', (t) => {
  const custom = createLaneTable([lane({ name: 'default', max_connections: 2 })]);
  t.is(custom.laneFor('mx.example.com', 'transactional').max_connections, 2);
});

test('a configured lane with a new name is added and matched by its suffixes', (t) => {
  const custom = createLaneTable([
    lane({ name: 'proton', mx_suffixes: ['.protonmail.ch.'], tls: 'require' }),
  ]);
  const chosen = custom.laneFor('mail.protonmail.ch', 'transactional');
  t.is(chosen.name, 'proton');
  t.is(chosen.tls, 'require');
  t.is(custom.laneFor('mail.protonmail.ch', 'marketing').name, 'default');
  t.is(custom.lanes('transactional').length, 6);
});

test('the longest matching suffix wins', (t) => {
  const custom = createLaneTable([lane({ name: 'o365', mx_suffixes: ['mail.protection.outlook.com'] })]);
  t.is(custom.laneFor('contoso-com.mail.protection.outlook.com', 'transactional').name, 'o365');
  t.is(custom.laneFor('hotmail-com.olc.protection.outlook.com', 'transactional').name, 'outlook');
});

test('the same lane configured twice for one traffic class is refused', (t) => {
  t.throws(() => mergeLanes([lane({ name: 'gmail' }), lane({ name: 'gmail' })]), { message: /gmail.*twice/ });
  t.notThrows(() => mergeLanes([lane({ name: 'gmail' }), lane({ name: 'gmail', traffic: 'marketing' })]));
});

test('a lane block naming a built-in lane changes only the keys it sets', (t) => {
  // Through the config schema, as an operator's config.toml arrives: no key the block leaves out
  // may come back at a generic default (that once made `rate_per_second = 2` raise Yahoo's limits).
  const { lanes } = deliverySection.parse({ lanes: [{ name: 'yahoo', rate_per_second: 2 }] });
  const yahoo = createLaneTable(lanes).laneFor('mta5.am0.yahoodns.net', 'transactional');
  const builtIn = builtInLanes.find((l) => l.name === 'yahoo' && l.traffic === 'transactional');
  t.deepEqual(yahoo, { ...builtIn, rate_per_second: 2 });
  t.is(yahoo.max_connections, 4);
  t.is(yahoo.connections_per_mx, 2);
  t.is(yahoo.messages_per_connection, 20);
});

test('a new lane takes the documented values for the keys it leaves out', (t) => {
  const { lanes } = deliverySection.parse({ lanes: [{ name: 'proton', mx_suffixes: ['protonmail.ch'] }] });
  const proton = createLaneTable(lanes).laneFor('mail.protonmail.ch', 'transactional');
  t.deepEqual(proton, {
    name: 'proton',
    traffic: 'transactional',
    mx_suffixes: ['protonmail.ch'],
    ...newLaneDefaults,
  });
});
