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
  const lanes = w.json<
    { traffic: string; lane: string | null; queued: number; inFlight: number; deferred: number }[]
  >(['queue', 'stats', '--json', '--config', config]);
  t.like(lanes, [{ traffic: 'transactional', lane: null, queued: 3, inFlight: 0, deferred: 0 }]);
  const table = w.run(['queue', 'stats', '--config', config]);
  t.is(table.code, 0, table.stderr);
  t.regex(table.stdout, /TRAFFIC\s+LANE\s+QUEUED\s+IN FLIGHT\s+DEFERRED\s+OLDEST/);
  t.regex(table.stdout, /transactional\s+\(new\)\s+3\s+0\s+0\s+\d+s/);
});
