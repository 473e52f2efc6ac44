/**
 * The API fuzzer's bounded form (the full run is scripts/fuzz): every operation in /openapi.json
 * gets generated and hostile requests with valid credentials of each kind and without.
 */
import test from 'ava';
import { fuzzAll, operationsOf, printSummary } from './fuzz/openapi-fuzz.js';
import { makeTenant, renewCredentials, startWorld } from './fuzz/world.js';

const RUNS = Number(process.env.POSTHORN_FUZZ_RUNS ?? 8);
const TIME_LIMIT_MS = Number(process.env.POSTHORN_FUZZ_MS ?? 150_000);

test('every documented operation answers generated and hostile requests without a 5xx, an undocumented status or a body that contradicts its schema', async (t) => {
  t.timeout(TIME_LIMIT_MS + 120_000);
  const started = Date.now();
  const world = await startWorld(t);
  const tenant = await makeTenant(world, 'alpha');
  const ops = operationsOf(world.document);
  t.true(ops.length >= 100, `the document lists ${ops.length} operations`);
  const summary = await fuzzAll(world, tenant, ops, {
    runsPerOperation: RUNS,
    timeLimitMs: TIME_LIMIT_MS,
    renew: () => renewCredentials(world, tenant),
  });
  t.log(printSummary('api fuzz', summary, started));
  for (const violation of summary.violations) t.log(violation.slice(0, 1500));
  t.is(summary.serverErrors, 0);
  t.deepEqual(summary.violations, []);
  t.is(summary.operations, ops.length);
});
