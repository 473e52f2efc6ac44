/**
 * Identifiers: prefixed ULIDs, unique, sorting in creation order, carrying their creation time,
 * with random parts that differ from one millisecond to the next.
 */
import test from 'ava';
import { idFloor, idTime, newId, orderedIds } from '../../src/platform/ids.js';

const SHAPE = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;

test('an ID is the prefix and a ULID carrying its creation time', (t) => {
  const id = newId('msg', 1_700_000_000_123);
  t.regex(id, SHAPE);
  t.is(idTime(id), 1_700_000_000_123);
  t.true(idFloor('msg', 1_700_000_000_123) <= id);
  t.true(idFloor('msg', 1_700_000_000_124) > id);
});

test('IDs made in one process are unique and sort in creation order, within and across milliseconds', (t) => {
  const ids: string[] = [];
  const start = 1_700_000_000_000;
  for (let i = 0; i < 20_000; i++) ids.push(newId('msg', start + Math.floor(i / 100)));
  t.is(new Set(ids).size, ids.length);
  t.deepEqual([...ids].sort(), ids);
});

test('each millisecond starts from fresh randomness (no two milliseconds share their random part)', (t) => {
  const randomParts = new Set<string>();
  for (let ms = 0; ms < 5_000; ms++) randomParts.add(newId('msg', 1_800_000_000_000 + ms).slice(-16));
  t.is(randomParts.size, 5_000);
  // All 32 symbols of the alphabet show up in the first random character across 5,000 draws.
  const firstSymbols = new Set([...randomParts].map((part) => part[0]));
  t.is(firstSymbols.size, 32);
});

test('ordered IDs sort above the newest stored one even when the clock reads earlier than its time', (t) => {
  const ids = orderedIds('evt');
  // Stored by a process whose clock ran an hour ahead; the largest random part of its millisecond.
  const stored = `${idFloor('evt', Date.now() + 3_600_000).slice(0, 14)}ZZZZZZZZZZZZZZZZ`;
  ids.seed(stored);
  const made = Array.from({ length: 1_000 }, () => ids.next());
  t.true(made[0]! > stored);
  t.deepEqual([...made].sort(), made);
  t.is(new Set(made).size, made.length);
});

test('ordered IDs carry the current time when nothing stored is newer', (t) => {
  const ids = orderedIds('evt');
  ids.seed(idFloor('evt', Date.now() - 60_000));
  ids.seed(undefined);
  const before = Date.now();
  const id = ids.next();
  t.true(idTime(id)! >= before && idTime(id)! <= Date.now());
});
