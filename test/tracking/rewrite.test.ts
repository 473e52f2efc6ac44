import { randomBytes } from 'node:crypto';
import test from 'ava';
import { scanHtml, type TrackingDecision, trackHtml } from '../../src/tracking/rewrite.js';
import { trackedHtml, unsubscribeUrls } from '../../src/tracking/render-input.js';
import { readToken } from '../../src/tracking/token.js';

const key = randomBytes(32);
const MESSAGE = 'msg_01JD3Q8Z9V6W1R2T3Y4U5X6Y7Z';
const both: TrackingDecision = { opens: true, clicks: true, baseUrl: 'https://t.acme.test', key };

/** The original URL behind each tracked link of `html`, in order. */
function trackedTargets(html: string): string[] {
  return scanHtml(html)
    .links.map((link) => link.url)
    .filter((url) => url.startsWith('https://t.acme.test/v1/track/click/'))
    .map((url) => {
      const token = readToken(key, url.slice('https://t.acme.test/v1/track/click/'.length), 'click');
      if (token?.kind !== 'click') throw new Error(`not a click token: ${url}`);
      return token.url;
    });
}

test('http and https links are rewritten to click URLs that name the original, in order, counted', (t) => {
  const html =
    '<p><a href="https://acme.test/a?x=1&amp;y=2">A</a> <A HREF=\'http://Acme.test/b\'>B</A> <area href=https://acme.test/c></p>';
  const out = trackHtml(html, MESSAGE, { ...both, opens: false }, []);
  t.deepEqual(trackedTargets(out), [
    'https://acme.test/a?x=1&y=2',
    'http://acme.test/b',
    'https://acme.test/c',
  ]);
  const tokens = scanHtml(out).links.map((link) =>
    readToken(key, link.url.split('/').at(-1) as string, 'click'),
  );
  t.deepEqual(
    tokens.map((token) => token?.kind === 'click' && [token.messageId, token.index, token.count]),
    [
      [MESSAGE, 0, 3],
      [MESSAGE, 1, 3],
      [MESSAGE, 2, 3],
    ],
  );
  // Only the href values changed.
  t.is(
    out.replace(/https:\/\/t\.acme\.test\/v1\/track\/click\/[A-Za-z0-9_-]+/g, 'X'),
    '<p><a href="X">A</a> <A HREF=\'X\'>B</A> <area href=X></p>',
  );
});

test('mailto, tel, anchors, relative links, unsubscribe links and marked links stay untouched', (t) => {
  const html = [
    '<a href="mailto:help@acme.test">mail</a>',
    '<a href="tel:+3725555">call</a>',
    '<a href="#top">top</a>',
    '<a href="/relative">rel</a>',
    '<a href="https://acme.test/unsubscribe?u=1">unsubscribe</a>',
    '<a href="https://lists.acme.test/opt?id=9">leave</a>',
    '<a data-posthorn-no-track href="https://acme.test/private">private</a>',
    '<a href="https://acme.test/kept" data-posthorn-no-track="">kept</a>',
    '<!-- <a href="https://acme.test/commented">c</a> -->',
    '<a href="javascript:alert(1)">js</a>',
  ].join('\n');
  const out = trackHtml(html, MESSAGE, { ...both, opens: false }, [
    '<https://lists.acme.test/opt?id=9>'.slice(1, -1),
  ]);
  t.is(out, html);
});

test('the pixel goes before the last </body>, or at the end without one; text is never touched', (t) => {
  const withBody = '<html><body><p>Hi</p></body></html>';
  const out = trackHtml(withBody, MESSAGE, { ...both, clicks: false }, []);
  t.regex(
    out,
    /^<html><body><p>Hi<\/p><img src="https:\/\/t\.acme\.test\/v1\/track\/open\/[A-Za-z0-9_-]+" width="1" height="1" alt=""[^>]*\/><\/body><\/html>$/,
  );
  const token = /open\/([A-Za-z0-9_-]+)"/.exec(out)?.[1] as string;
  t.deepEqual(readToken(key, token, 'open'), { kind: 'open', messageId: MESSAGE });
  const fragment = trackHtml('<p>Hi</p>', MESSAGE, { ...both, clicks: false }, []);
  t.true(fragment.startsWith('<p>Hi</p><img src="https://t.acme.test/v1/track/open/'));
});

test('nothing tracked leaves the HTML as it is', (t) => {
  const html = '<a href="https://acme.test/">x</a>';
  t.is(trackHtml(html, MESSAGE, { ...both, opens: false, clicks: false }, []), html);
});

test('a tracked link is never tracked twice', (t) => {
  const once = trackHtml('<a href="https://acme.test/">x</a>', MESSAGE, { ...both, opens: false }, []);
  t.is(trackHtml(once, MESSAGE, { ...both, opens: false }, []), once);
});

test("the message's List-Unsubscribe URLs are read from its header, and its links to them stay untouched", (t) => {
  const headers = { 'List-Unsubscribe': '<mailto:leave@acme.test?subject=stop>, <https://acme.test/l/9>' };
  t.deepEqual(unsubscribeUrls(headers), ['mailto:leave@acme.test?subject=stop', 'https://acme.test/l/9']);
  t.deepEqual(unsubscribeUrls({ 'list-unsubscribe': '<https://acme.test/l/9>' }), ['https://acme.test/l/9']);
  t.deepEqual(unsubscribeUrls({}), []);
  const html = '<a href="https://acme.test/l/9">leave</a><a href="https://acme.test/shop">shop</a>';
  const out = trackedHtml(Buffer.from(html), {
    messageId: MESSAGE,
    decision: { ...both, opens: false },
    unsubscribeUrls: unsubscribeUrls(headers),
  });
  t.true(
    out.startsWith('<a href="https://acme.test/l/9">leave</a><a href="https://t.acme.test/v1/track/click/'),
  );
});
