/**
 * The only custom headers a send may carry: threading (RFC 5322 §3.6.4 In-Reply-To, References)
 * and one-click unsubscribe (RFC 2369 List-Unsubscribe, RFC 8058 List-Unsubscribe-Post). Names are
 * matched case-insensitively and stored in their canonical spelling. Anything else could forge
 * what the delivery engine owns (From, Message-ID, DKIM-Signature), so it is refused.
 */

const canonical: Record<string, string> = {
  'in-reply-to': 'In-Reply-To',
  references: 'References',
  'list-unsubscribe': 'List-Unsubscribe',
  'list-unsubscribe-post': 'List-Unsubscribe-Post',
};

// RFC 5322 §2.1.1: a line MUST be at most 998 characters. The composer folds these headers only at
// the spaces between IDs or URIs (canonicalHeaders puts one after each List-Unsubscribe comma), so
// each must fit one line behind the longest header name: `List-Unsubscribe: <` + 900 + `>,` is 921.
// A whole value is bounded too, generously for the References of a long thread.
export const MAX_HEADER_TOKEN = 900;
export const MAX_HEADER_VALUE = 4000;

// RFC 5322 §3.6.4: msg-id = "<" id-left "@" id-right ">", printable US-ASCII without spaces (a
// non-ASCII ID would go out as raw 8-bit bytes, which no 7-bit header may carry).
const msgId = /^<[\x21-\x3b\x3d\x3f\x41-\x7e]+@[\x21-\x3b\x3d\x3f\x41-\x7e]+>$/;
// RFC 2369 §2: one or more <URI>, comma separated; a URI is US-ASCII (RFC 3986 §2: other characters
// are percent-encoded), else the composer would encode the header and break the URI.
const uriList = /^<[\x21-\x3b\x3d\x3f-\x7e]+>(?:\s*,\s*<[\x21-\x3b\x3d\x3f-\x7e]+>)*$/;
const uriToken = /<[^<>\s]+>/g;

/**
 * Whether a bare message ID (no angle brackets) is one In-Reply-To and References accept: the
 * inbound reply path keeps only such IDs from a received message's threading headers.
 */
export function isSendableMessageId(id: string): boolean {
  return id.length <= MAX_HEADER_TOKEN && msgId.test(`<${id}>`);
}

/** Returns one sentence per problem, empty when the headers are acceptable. */
export function checkHeaders(headers: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    const proper = canonical[key];
    if (!proper) {
      problems.push(
        `"${name}" is not allowed; only In-Reply-To, References, List-Unsubscribe and List-Unsubscribe-Post may be set`,
      );
      continue;
    }
    if (byName.has(key)) problems.push(`"${proper}" is given twice`);
    if (/[\r\n]/.test(value)) problems.push(`"${proper}" must not contain line breaks`);
    if (value.length > MAX_HEADER_VALUE)
      problems.push(`"${proper}" must be at most ${MAX_HEADER_VALUE} characters`);
    byName.set(key, value.trim());
  }
  const inReplyTo = byName.get('in-reply-to');
  if (inReplyTo !== undefined && !msgId.test(inReplyTo)) {
    problems.push(
      '"In-Reply-To" must be one message ID like <id@example.com>, in US-ASCII (RFC 5322 §3.6.4)',
    );
  }
  const references = byName.get('references');
  if (references !== undefined && !references.split(/\s+/).every((id) => msgId.test(id))) {
    problems.push(
      '"References" must be message IDs like <id@example.com> separated by spaces, in US-ASCII (RFC 5322 §3.6.4)',
    );
  }
  for (const name of ['In-Reply-To', 'References'] as const) {
    const ids = byName.get(name.toLowerCase())?.split(/\s+/) ?? [];
    if (ids.some((id) => id.length > MAX_HEADER_TOKEN + 2))
      problems.push(`"${name}" message IDs must be at most ${MAX_HEADER_TOKEN} characters between < and >`);
  }
  const unsubscribe = byName.get('list-unsubscribe');
  if (unsubscribe !== undefined && !uriList.test(unsubscribe)) {
    problems.push(
      '"List-Unsubscribe" must be one or more <URI> separated by commas, in US-ASCII (RFC 2369 §2)',
    );
  }
  if (unsubscribe?.match(uriToken)?.some((uri) => uri.length > MAX_HEADER_TOKEN + 2)) {
    problems.push(`"List-Unsubscribe" URIs must be at most ${MAX_HEADER_TOKEN} characters between < and >`);
  }
  const post = byName.get('list-unsubscribe-post');
  if (post !== undefined) {
    if (post !== 'List-Unsubscribe=One-Click') {
      problems.push('"List-Unsubscribe-Post" must be exactly "List-Unsubscribe=One-Click" (RFC 8058 §3.1)');
    }
    if (unsubscribe === undefined || !/<https:\/\/[^>]+>/i.test(unsubscribe)) {
      problems.push(
        '"List-Unsubscribe-Post" needs a List-Unsubscribe header with an https URI (RFC 8058 §3.1)',
      );
    }
  }
  return problems;
}

/**
 * The headers in canonical spelling, values trimmed, List-Unsubscribe URIs separated by ", " (so
 * the header can be folded between them, however they were separated); call only after
 * checkHeaders found nothing.
 */
export function canonicalHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const proper = canonical[name.toLowerCase()] ?? name;
    out[proper] = proper === 'List-Unsubscribe' ? (value.match(uriToken) ?? []).join(', ') : value.trim();
  }
  return out;
}
