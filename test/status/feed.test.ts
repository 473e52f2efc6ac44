import { spawnSync } from 'node:child_process';
import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

/** Parses `xml` with Debian's python3-feedparser, an RSS reader written by others. */
function feedparser(xml: string) {
  const script = `
import json, sys, feedparser
d = feedparser.parse(sys.stdin.read())
print(json.dumps({
  "bozo": bool(d.bozo), "bozo_exception": str(d.get("bozo_exception", "")), "version": d.version,
  "title": d.feed.get("title"), "link": d.feed.get("link"), "description": d.feed.get("description"),
  "items": [{"title": e.get("title"), "guid": e.get("id"), "guidislink": e.get("guidislink"),
             "link": e.get("link"), "published": e.get("published"),
             "parsed": list(e.published_parsed[:6]) if e.get("published_parsed") else None,
             "summary": e.get("summary")} for e in d.entries]}))
`;
  const result = spawnSync('/usr/bin/python3', ['-c', script], { input: xml, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`python3-feedparser failed (apt-get install python3-feedparser): ${result.stderr}`);
  return JSON.parse(result.stdout);
}

test('the RSS feed is valid RSS 2.0 for a feed reader: one item per incident update with a stable guid and an RFC 822 date', async (t) => {
  const ph = await startPosthorn(t, { status: { title: 'Acme Mail' } });
  const incidents = ph.server.services.status.incidents;
  const opened = await incidents.open({
    title: 'Delayed <delivery> & retries',
    components: ['delivery'],
    impact: 'degraded',
    message: 'We see delays to some providers.',
  });
  await incidents.resolve(opened.incident.id, 'All caught up.');
  const res = await ph.request('GET', '/v1/status/rss.xml', { key: null });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^application\/rss\+xml; charset=utf-8$/);
  const feed = feedparser(res.text);
  t.false(feed.bozo, feed.bozo_exception);
  t.is(feed.version, 'rss20');
  t.is(feed.title, 'Acme Mail status');
  t.is(feed.link, `${ph.config.server.public_url}/status`);
  t.truthy(feed.description);
  const { updates } = await incidents.get(opened.incident.id);
  t.deepEqual(
    feed.items.map((i: { guid: string }) => i.guid),
    updates.map((u) => u.id),
    'newest update first, its ID as guid',
  );
  t.false(feed.items[0].guidislink);
  t.is(feed.items[0].title, '[Resolved] Delayed <delivery> & retries');
  t.is(feed.items[1].title, '[Investigating] Delayed <delivery> & retries');
  t.is(feed.items[1].summary, 'We see delays to some providers.');
  t.is(feed.items[0].link, `${ph.config.server.public_url}/status#${opened.incident.id}`);
  t.regex(feed.items[0].published, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  const when = new Date(updates[0]?.created_at as number);
  t.deepEqual(feed.items[0].parsed, [
    when.getUTCFullYear(),
    when.getUTCMonth() + 1,
    when.getUTCDate(),
    when.getUTCHours(),
    when.getUTCMinutes(),
    when.getUTCSeconds(),
  ]);

  const again = await ph.request('GET', '/v1/status/rss.xml', { key: null });
  t.is(again.text, res.text, 'the same history renders the same bytes');
  const cached = await ph.request('GET', '/v1/status/rss.xml', {
    key: null,
    headers: { 'if-none-match': res.headers.get('etag') as string },
  });
  t.is(cached.status, 304);
});

test('GET /status is a small HTML page with the components, 90 days and the incidents, needing no script or outside resource', async (t) => {
  const ph = await startPosthorn(t, { status: { title: 'Acme Mail', check_interval: '100ms' } });
  await ph.server.services.status.incidents.open({
    title: 'Webhooks <b>late</b>',
    components: ['webhooks'],
    impact: 'major_outage',
    message: 'The receiver queue is stuck.',
  });
  const res = await ph.request('GET', '/status', { key: null });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = res.text;
  t.true(html.length < 60_000, `${html.length} bytes`);
  t.notRegex(html, /<script/i);
  t.notRegex(html, /(src|href)="(https?:)?\/\//i, 'nothing is loaded from another origin');
  t.regex(html, /<title>Acme Mail status<\/title>/);
  t.regex(html, /Major system outage/);
  t.regex(html, /Webhooks &lt;b&gt;late&lt;\/b&gt;/, 'store text is escaped');
  t.regex(html, /The receiver queue is stuck\./);
  for (const name of ['HTTP API', 'Database', 'Webhooks']) t.regex(html, new RegExp(`<span>${name}`));
  const strips = html.match(/<div class="days"[^>]*>(.*?)<\/div>/g) ?? [];
  t.is(strips.length, 3);
  t.is((strips[2]?.match(/<span /g) ?? []).length, 90, 'one mark per day of the last 90');
  t.regex(strips[2] ?? '', /class="major_outage" title="\d{4}-\d{2}-\d{2}: Major outage"><\/span><\/div>$/);
});
