import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { parseDuration } from '../../src/platform/config/duration.js';
import { validateConfig } from '../../src/platform/config/load.js';
import { stopTimeWarning, UNIT_TIMEOUT_STOP_SEC } from '../../src/stop-time.js';

const root = path.resolve(import.meta.dirname, '../../..');
const unit = readFileSync(path.join(root, 'systemd/posthorn.service'), 'utf8');

function directive(name: string): string[] {
  return unit
    .split('\n')
    .filter((line) => line.startsWith(`${name}=`))
    .map((line) => line.slice(name.length + 1));
}

test('the unit is hardened: own user, read-only system, one writable dir, one capability, restart on failure', (t) => {
  t.deepEqual(directive('User'), ['posthorn']);
  t.deepEqual(directive('ProtectSystem'), ['strict']);
  t.deepEqual(directive('ReadWritePaths'), ['/var/lib/posthorn']);
  t.deepEqual(directive('NoNewPrivileges'), ['yes']);
  t.deepEqual(directive('AmbientCapabilities'), ['CAP_NET_BIND_SERVICE']);
  t.deepEqual(directive('CapabilityBoundingSet'), ['CAP_NET_BIND_SERVICE']);
  t.deepEqual(directive('Restart'), ['on-failure']);
  t.deepEqual(directive('KillSignal'), ['SIGTERM']);
});

test('systemd-analyze verify accepts the unit', (t) => {
  // .ci/run installs Debian's systemd, which ships systemd-analyze: a missing tool is a failure.
  const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  t.is(probe.error, undefined, 'systemd-analyze must be installed (Debian package systemd)');
  if (probe.error) return;
  // Point the unit at a stand-in executable so verify checks the unit, not this machine's /opt.
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'opt/posthorn/bin'), { recursive: true });
  const bin = path.join(dir, 'opt/posthorn/bin/posthorn');
  writeFileSync(bin, '#!/bin/sh\nexit 0\n');
  chmodSync(bin, 0o755);
  const file = path.join(dir, 'posthorn.service');
  writeFileSync(file, unit.replaceAll('/opt/posthorn', path.join(dir, 'opt/posthorn')));
  const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  t.is(result.status, 0, result.stderr);
  t.is(result.stderr.trim(), '', result.stderr);
});

test("the default stop fits within the unit's TimeoutStopSec, with room for the flush and store close", (t) => {
  const [stopSec] = directive('TimeoutStopSec');
  const limitMs = Number(stopSec) * 1000;
  t.true(limitMs > 0, 'TimeoutStopSec is set in seconds');
  const config = validateConfig({}, 'defaults');
  // HTTP, the inbound listener and the delivery engine drain side by side (server.ts, background.ts).
  const longestWait = Math.max(
    parseDuration(config.server.shutdown_timeout),
    parseDuration(config.delivery.drain_timeout),
  );
  t.true(longestWait * 2 <= limitMs, `${longestWait} ms of waits against ${limitMs} ms`);
});

test('config check warns against the TimeoutStopSec the unit ships, and not for the defaults', (t) => {
  t.deepEqual(directive('TimeoutStopSec'), [String(UNIT_TIMEOUT_STOP_SEC)]);
  t.is(stopTimeWarning(validateConfig({}, 'defaults')), undefined);
});
