/**
 * Dedicated-IP requests over the API and their review with `posthorn admin ips ...` (the real
 * command, against the data directory of a running server), as GET /v1/reputation shows them.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { workdir } from '../helpers/cli.js';
import { type Posthorn, startPosthorn, storageToml } from '../helpers/server.js';

async function setup(t: ExecutionContext, sourceIps: readonly string[] = ['127.0.0.2', '127.0.0.3']) {
  const ph = await startPosthorn(t, { delivery: { source_ips: [...sourceIps] } });
  const w = workdir(t);
  const config = path.join(w.dir, 'posthorn.toml');
  writeFileSync(
    config,
    `[storage]\n${storageToml(ph)}\n[delivery]\nsource_ips = ${JSON.stringify(sourceIps)}\n`,
  );
  // Spawned, not spawnSync: the server under test runs in this process and must keep answering.
  const cli = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = w.spawn(['admin', 'ips', ...args, '--config', config]);
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  return { ph, cli };
}

const ask = (ph: Posthorn, body: unknown, key?: string) =>
  ph.request('POST', '/v1/dedicated-ips/requests', { body, ...(key ? { key } : {}) });

test('a request is accepted for review once; a second one waits for the first', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ask(ph, { monthly_volume: 500_000, reason: 'Receipts for a growing shop' });
  t.is(res.status, 202, res.text);
  t.like(res.body, { status: 'pending', monthly_volume: 500_000, review: null });
  t.regex(res.body.id, /^dip_/);
  const again = await ask(ph, { monthly_volume: 10, reason: 'again' });
  t.is(again.status, 409);
  t.regex(again.body.error, new RegExp(res.body.id));
});

test('a request without volume, with a bad volume or an unknown field is a 400 naming the field', async (t) => {
  const ph = await startPosthorn(t);
  const missing = await ask(ph, { reason: 'no volume' });
  t.is(missing.status, 400);
  t.is(missing.body.details[0].path, 'monthly_volume');
  const zero = await ask(ph, { monthly_volume: 0, reason: 'x' });
  t.is(zero.status, 400);
  const empty = await ask(ph, { monthly_volume: 10, reason: '  ' });
  t.is(empty.status, 400);
  t.is(empty.body.details[0].path, 'reason');
  const extra = await ask(ph, { monthly_volume: 10, reason: 'x', ip: '1.2.3.4' });
  t.is(extra.status, 400);
  const readOnly = await ph.createKey(ph.owner.projectId, ['reputation:read']);
  t.is((await ask(ph, { monthly_volume: 10, reason: 'x' }, readOnly)).status, 403);
});

test('an operator approves a request with an address and a plan, and the project sees its warm-up', async (t) => {
  const { ph, cli } = await setup(t);
  const request = await ask(ph, { monthly_volume: 300_000, reason: 'Our own reputation' });
  const listed = JSON.parse((await cli('requests', '--json')).stdout);
  t.like(listed.data[0], { id: request.body.id, project_id: ph.owner.projectId, status: 'pending' });

  const outside = await cli('approve', request.body.id, '--ip', '192.0.2.7');
  t.is(outside.code, 1);
  t.regex(outside.stderr, /192\.0\.2\.7 is not one of delivery\.source_ips \(127\.0\.0\.2, 127\.0\.0\.3\)/);
  const noPlan = await cli('approve', request.body.id, '--ip', '127.0.0.3', '--plan', 'turbo');
  t.is(noPlan.code, 1);
  t.regex(noPlan.stderr, /No warm-up plan is named "turbo"; known: standard/);
  t.is((await cli('approve', request.body.id)).code, 2, '--ip is required');

  const approved = await cli('approve', request.body.id, '--ip', '127.0.0.3');
  t.is(approved.code, 0, approved.stderr);
  t.regex(approved.stdout, /sends from 127\.0\.0\.3 with the warm-up plan "standard"/);

  const report = await ph.request('GET', '/v1/reputation');
  const { requests, assignments } = report.body.dedicated_ips;
  t.like(requests[0], {
    id: request.body.id,
    status: 'approved',
    review: { decision: 'approved', ip: '127.0.0.3', plan: 'standard' },
  });
  t.is(assignments.length, 1);
  t.like(assignments[0], {
    ip: '127.0.0.3',
    request_id: request.body.id,
    plan: { name: 'standard' },
    warmup: { day: 1, days: 30, complete: false, limit_per_provider_today: 50, sent_today: {} },
  });
  t.is(assignments[0].plan.daily_limits[1], 100);

  const twice = await cli('approve', request.body.id, '--ip', '127.0.0.2');
  t.is(twice.code, 1);
  t.regex(twice.stderr, /already approved/);
  const more = await ask(ph, { monthly_volume: 1, reason: 'another' });
  t.is(more.status, 409);
  t.regex(more.body.error, /already sends from its dedicated IP 127\.0\.0\.3/);
});

test('a declined request shows the operator’s reason; an address is never given to two projects', async (t) => {
  const { ph, cli } = await setup(t, ['127.0.0.2', '127.0.0.3', '127.0.0.4']);
  const other = await ph.bootstrap();
  const first = await ask(ph, { monthly_volume: 100_000, reason: 'mine' });
  const second = await ask(ph, { monthly_volume: 2000, reason: 'theirs' }, other.apiKey);
  t.is((await cli('decline', second.body.id)).code, 2, '--reason is required');
  const declined = await cli('decline', second.body.id, '--reason', 'Volume too low to keep an IP warm');
  t.is(declined.code, 0, declined.stderr);
  const theirs = await ph.request('GET', '/v1/reputation', { key: other.apiKey });
  t.like(theirs.body.dedicated_ips.requests[0], {
    status: 'declined',
    review: { decision: 'declined', note: 'Volume too low to keep an IP warm', ip: null },
  });
  t.deepEqual(theirs.body.dedicated_ips.assignments, []);

  t.is((await cli('approve', first.body.id, '--ip', '127.0.0.2')).code, 0);
  const third = await ask(ph, { monthly_volume: 90_000, reason: 'again' }, other.apiKey);
  const taken = await cli('approve', third.body.id, '--ip', '127.0.0.2');
  t.is(taken.code, 1);
  t.regex(taken.stderr, /127\.0\.0\.2 is already the dedicated IP of project/);
  const pending = JSON.parse((await cli('requests', '--status', 'pending', '--json')).stdout);
  t.deepEqual(
    pending.data.map((r: { id: string }) => r.id),
    [third.body.id],
  );
});

test('an approval that would leave no shared address is refused', async (t) => {
  const { ph, cli } = await setup(t, ['127.0.0.2']);
  const request = await ask(ph, { monthly_volume: 100_000, reason: 'all of it' });
  const refused = await cli('approve', request.body.id, '--ip', '127.0.0.2');
  t.is(refused.code, 1);
  t.regex(refused.stderr, /would leave no shared address/);
});
