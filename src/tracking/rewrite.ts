/**
 * The tracking step of composition: given a message's HTML and its tracking decision, adds the
 * open pixel at the end of the body and points every tracked link at the tracking host. It runs in
 * the render worker before DKIM signing, so the signature covers the rewritten HTML. Text bodies
 * are never rewritten.
 *
 * A link is tracked when it is the `href` of an `<a>` or `<area>`, is absolute `http:` or `https:`,
 * and is none of these (docs/tracking.md):
 * - marked to stay untouched with the `data-posthorn-no-track` attribute;
 * - an unsubscribe link: one of the message's List-Unsubscribe URLs, or any URL that says
 *   "unsubscribe" (a one-click unsubscribe must work without the tracking host, and a scanner
 *   following it must not count as a person);
 * - already a tracking URL, or longer than `MAX_TRACKED_URL_BYTES`.
 * `mailto:`, `tel:`, anchors (`#top`) and relative links are not http(s) and stay as they are.
 * Markup inside comments (Outlook's conditional comments included) is left alone.
 *
 * The HTML is tokenized (htmlparser2), never rebuilt: only the bytes of each tracked `href` value
 * change, and the pixel is inserted before the last `</body>` (or appended), so the rest of the
 * markup reaches the recipient exactly as it was submitted.
 */
import { decodeHTMLAttribute } from 'entities';
import { Tokenizer } from 'htmlparser2';
import { clickToken, MAX_TRACKED_LINKS, MAX_TRACKED_URL_BYTES, openToken } from './token.js';

/** What the step needs to know about one message; plain data, so it crosses to a worker thread. */
export interface TrackingDecision {
  readonly opens: boolean;
  readonly clicks: boolean;
  /** Scheme, host and port of tracking URLs, no trailing slash: `https://links.acme.com`. */
  readonly baseUrl: string;
  /** The token key (token.ts `trackingTokenKey`). */
  readonly key: Uint8Array;
}

/** The marker attribute that keeps a link untouched. */
export const NO_TRACK_ATTRIBUTE = 'data-posthorn-no-track';
/** Path prefixes of the tracking endpoints (routes.ts). */
export const OPEN_PATH = '/v1/track/open/';
export const CLICK_PATH = '/v1/track/click/';

interface Link {
  /** Offsets of the raw attribute value in the HTML. */
  readonly start: number;
  readonly end: number;
  readonly url: string;
}

interface Scan {
  readonly links: Link[];
  /** Where the last `</body>` starts, or -1. */
  readonly bodyEnd: number;
}

/**
 * The HTML with the pixel and tracked links, or the same string when nothing is tracked.
 *
 * @example
 * trackHtml('<a href="https://acme.test/">Go</a>', 'msg_01JD3Q8Z9V6W1R2T3Y4U5X6Y7Z',
 *   { opens: true, clicks: true, baseUrl: 'https://t.acme.test', key }, [])
 * // '<a href="https://t.acme.test/v1/track/click/AWMw...">Go</a><img src="https://t.acme.test/v1/track/open/AW8w..." ...>'
 */
export function trackHtml(
  html: string,
  messageId: string,
  decision: TrackingDecision,
  unsubscribeUrls: readonly string[],
): string {
  if (!decision.opens && !decision.clicks) return html;
  const scan = scanHtml(html);
  const trackingPrefix = `${decision.baseUrl}/v1/track/`;
  const links = decision.clicks
    ? scan.links
        .flatMap((link) => {
          const url = followed(link.url);
          return url !== undefined && tracked(url, trackingPrefix, unsubscribeUrls) ? [{ ...link, url }] : [];
        })
        .slice(0, MAX_TRACKED_LINKS)
    : [];
  const parts: string[] = [];
  let at = 0;
  links.forEach((link, index) => {
    const token = clickToken(decision.key, messageId, { index, count: links.length, url: link.url });
    parts.push(html.slice(at, link.start), `${decision.baseUrl}${CLICK_PATH}${token}`);
    at = link.end;
  });
  if (decision.opens) {
    const pixel = pixelTag(`${decision.baseUrl}${OPEN_PATH}${openToken(decision.key, messageId)}`);
    const insertAt = scan.bodyEnd >= at ? scan.bodyEnd : html.length;
    parts.push(html.slice(at, insertAt), pixel);
    at = insertAt;
  }
  parts.push(html.slice(at));
  return parts.join('');
}

/** 1×1, no border, out of the flow; `alt=""` so that a client blocking images shows nothing. */
function pixelTag(src: string): string {
  return `<img src="${src}" width="1" height="1" alt="" border="0" style="height:1px!important;width:1px!important;border-width:0!important;margin:0!important;padding:0!important" />`;
}

/**
 * The URL a browser follows for an absolute http(s) `href` (WHATWG URL: host lower-cased and
 * punycoded, other characters percent-encoded), which the click endpoint redirects to; undefined
 * for any other link.
 */
function followed(href: string): string | undefined {
  if (!/^https?:\/\/[^\s/?#]/i.test(href)) return undefined;
  try {
    return new URL(href).href;
  } catch {
    return undefined;
  }
}

function tracked(url: string, trackingPrefix: string, unsubscribeUrls: readonly string[]): boolean {
  if (Buffer.byteLength(url, 'utf8') > MAX_TRACKED_URL_BYTES) return false;
  if (url.startsWith(trackingPrefix)) return false;
  if (/unsubscribe/i.test(url) || unsubscribeUrls.some((u) => followed(u) === url)) return false;
  return true;
}

/** The `href` values of `<a>` and `<area>` start tags, and where the last `</body>` is. */
export function scanHtml(html: string): Scan {
  const links: Link[] = [];
  let bodyEnd = -1;
  let tag = '';
  let attribute = '';
  let valueStart = -1;
  let valueEnd = -1;
  let href: { start: number; end: number } | undefined;
  let keep = false;
  const endTag = () => {
    if (href && !keep && (tag === 'a' || tag === 'area')) {
      const url = decodeHTMLAttribute(html.slice(href.start, href.end)).trim();
      links.push({ start: href.start, end: href.end, url });
    }
    tag = '';
    href = undefined;
    keep = false;
  };
  const nothing = () => {};
  const tokenizer = new Tokenizer(
    { decodeEntities: false },
    {
      onopentagname(start, end) {
        tag = html.slice(start, end).toLowerCase();
        href = undefined;
        keep = false;
      },
      onattribname(start, end) {
        attribute = html.slice(start, end).toLowerCase();
        valueStart = -1;
        valueEnd = -1;
      },
      onattribdata(start, end) {
        if (valueStart < 0) valueStart = start;
        valueEnd = end;
      },
      onattribend() {
        if (attribute === NO_TRACK_ATTRIBUTE) keep = true;
        // The first href counts, as browsers take the first of duplicated attributes (HTML §13.2.5.33).
        else if (attribute === 'href' && href === undefined && valueStart >= 0)
          href = { start: valueStart, end: valueEnd };
      },
      onopentagend: endTag,
      onselfclosingtag: endTag,
      onclosetag(start, end) {
        if (end - start === 4 && html.slice(start, end).toLowerCase() === 'body') bodyEnd = start - 2;
      },
      onattribentity: nothing,
      oncdata: nothing,
      oncomment: nothing,
      ondeclaration: nothing,
      onend: nothing,
      onprocessinginstruction: nothing,
      ontext: nothing,
      ontextentity: nothing,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return { links, bodyEnd };
}
