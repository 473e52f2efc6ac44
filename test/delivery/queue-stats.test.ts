import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { workdir } from '../helpers/cli.js';
import { send, startDeliveryEnv } from './env.js';

test('posthorn queue stats shows the queue per lane from the store', async (t) => {
  // The engine is off: the jobs stay queued and unrouted.
  const env = await startDeliveryEnv(t, { config: { delivery: { enabled: false } } });
  await send(env, { to: ['a@example.net', 'b@example.org'] });
  await send(env, { to: ['c@example.net'] });
  const w = workdir(t);
  const config = path.join(w.dir, 'config.toml');
  writeFileSync(config, `[storage]\ndata_dir = ${JSON.stringify(env.ph.dataDir)}\n`);
  const before = Date.now();
  const { data: lanes } = w.json<{ data: Record<string, unknown>[] }>([
    'queue',
    'stats',
    '--json',
    '--config',
    config,
  ]);
  t.like(lanes, [{ traffic: 'transactional', lane: null, queued: 3, in_flight: 0, deferred: 0 }]);
  // Like the API and the other commands' JSON: snake_case keys and ISO 8601 times.
  t.deepEqual(Object.keys(lanes[0] ?? {}).sort(), [
    'deferred',
    'in_flight',
    'lane',
    'oldest_created_at',
    'queued',
    'traffic',
  ]);
  const oldest = lanes[0]?.oldest_created_at as string;
  t.regex(oldest, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.true(Date.parse(oldest) <= before && before - Date.parse(oldest) < 60_000, oldest);
  const table = w.run(['queue', 'stats', '--config', config]);
  t.is(table.code, 0, table.stderr);
  t.regex(table.stdout, /TRAFFIC\s+LANE\s+QUEUED\s+IN FLIGHT\s+DEFERRED\s+OLDEST/);
  t.regex(table.stdout, /transactional\s+\(new\)\s+3\s+0\s+0\s+\d+s/);
});
