/**
 * The cache of parsed template versions keeps at most its count and its weight, least recently
 * used out first, and never keeps a version heavier than the whole budget.
 */
import test from 'ava';
import { createParsedCache } from '../../src/templates/parsed-cache.js';
import { parseContent } from '../../src/templates/parsed.js';

/** A version whose subject is `chars` characters long (`chars` ≥ 5, one placeholder). */
const content = (chars: number) => ({
  subject: `${'s'.repeat(chars - 5)}{{a}}`,
  html_body: null,
  text_body: null,
});
const weight = (chars: number) => parseContent(content(chars)).weight;

/**
 * Gets each ID in turn (`id:chars`), checking that a get of a kept ID returns the parse it kept;
 * then reports which IDs the cache holds.
 */
function run(limits: { maxEntries: number; maxBytes: number }, gets: readonly string[]) {
  const cache = createParsedCache(limits);
  const last = new Map<string, object>();
  for (const get of gets) {
    const [id, chars] = get.split(':') as [string, string];
    const kept = cache.has(id);
    const parsed = cache.get(id, content(Number(chars)));
    if (kept && parsed !== last.get(id)) throw new Error(`${id} was parsed again while kept`);
    last.set(id, parsed);
  }
  const held = [...last.keys()].filter((id) => cache.has(id));
  return { held, size: cache.size, bytes: cache.bytes };
}

const cases: Array<[string, { maxEntries: number; maxBytes: number }, string[], string[]]> = [
  ['a hit returns the parse kept the first time', { maxEntries: 5, maxBytes: 1e9 }, ['a:10', 'a:10'], ['a']],
  [
    'past the count the least recently used goes',
    { maxEntries: 2, maxBytes: 1e9 },
    ['a:10', 'b:10', 'c:10'],
    ['b', 'c'],
  ],
  [
    'a hit makes an entry the most recent',
    { maxEntries: 2, maxBytes: 1e9 },
    ['a:10', 'b:10', 'a:10', 'c:10'],
    ['a', 'c'],
  ],
  [
    'past the weight the oldest go until it fits',
    { maxEntries: 10, maxBytes: 2 * weight(1000) },
    ['a:1000', 'b:1000', 'c:1000'],
    ['b', 'c'],
  ],
  [
    'a version heavier than the budget is parsed but not kept',
    { maxEntries: 10, maxBytes: weight(1000) },
    ['a:10', 'b:2000'],
    ['a'],
  ],
  ['a count of zero keeps nothing', { maxEntries: 0, maxBytes: 1e9 }, ['a:10', 'a:10'], []],
];

for (const [title, limits, gets, held] of cases) {
  test(`parsed cache: ${title}`, (t) => {
    const result = run(limits, gets);
    t.deepEqual(result.held, held);
    t.true(result.size <= limits.maxEntries, `size ${result.size}`);
    t.true(result.bytes <= limits.maxBytes, `bytes ${result.bytes}`);
  });
}

test('parsed cache: its weight is the sum of what it holds, and clear empties it', (t) => {
  const cache = createParsedCache({ maxEntries: 3, maxBytes: 1e9 });
  for (const [id, chars] of [
    ['a', 100],
    ['b', 200],
    ['c', 300],
    ['d', 400],
  ] as const)
    cache.get(id, content(chars));
  t.is(cache.size, 3);
  t.is(cache.bytes, weight(200) + weight(300) + weight(400));
  cache.clear();
  t.deepEqual([cache.size, cache.bytes], [0, 0]);
});

test('parsed cache: cached returns a kept parse as a use, and nothing for a version it does not keep', (t) => {
  const cache = createParsedCache({ maxEntries: 2, maxBytes: 1e9 });
  t.is(cache.cached('a'), undefined);
  const a = cache.get('a', content(10));
  cache.get('b', content(10));
  t.is(cache.cached('a'), a);
  cache.get('c', content(10));
  t.deepEqual(
    ['a', 'b', 'c'].filter((id) => cache.has(id)),
    ['a', 'c'],
    'b, not a, was the least recently used',
  );
});
