import test from 'ava';
import { workdir } from '../helpers/cli.js';

test('admin keys create refuses a zero or over-ten-year lifetime before issuing anything', (t) => {
  const w = workdir(t);
  const { project_id: project } = w.json([
    'admin',
    'bootstrap',
    '--email',
    'a@example.test',
    '--org',
    'Acme',
    '--json',
  ]);
  for (const [lifetime, reason] of [
    ['0d', /--expires-in 0d: A key lifetime must be a whole number of milliseconds above zero/],
    ['200000000d', /--expires-in 200000000d: A key lifetime may be at most 3650 days/],
    ['3651d', /at most 3650 days/],
  ] as const) {
    const result = w.run(['admin', 'keys', 'create', '--project', project, '--expires-in', lifetime]);
    t.is(result.code, 2, lifetime);
    t.regex(result.stderr, reason);
  }
  const listed = w.json(['admin', 'keys', 'list', '--project', project, '--json']);
  t.is(listed.data.length, 1, 'only the bootstrap key exists');
  const longest = w.json([
    'admin',
    'keys',
    'create',
    '--project',
    project,
    '--expires-in',
    '3650d',
    '--json',
  ]);
  t.is(new Date(longest.expires_at).getUTCFullYear() - new Date().getUTCFullYear() >= 9, true);
});
