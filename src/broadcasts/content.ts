/**
 * A broadcast's content personalised for each contact. The subject and bodies may use
 * `{{first_name}}`, `{{last_name}}`, `{{email}}`, `{{metadata.NAME}}` and `{{unsubscribe_url}}`
 * (the template placeholders of the send API, templates/placeholders.ts); a value a contact
 * lacks is empty. Values are HTML-escaped in the HTML body and put on one line in the subject
 * (templates/render.ts, the same writer as a template send).
 *
 * Every message carries a visible way out: a body that does not place `{{unsubscribe_url}}`
 * itself gets a short footer with the link (before `</body>` in HTML, after the text). The content
 * is parsed once per broadcast; each contact costs only the writing of its values.
 *
 * A contact's message is written in two places: its subject (and every check of the whole
 * message) when the expansion queues it (`personalizeSubject`), its bodies when a render worker
 * composes it (`personalizeBodies`, render-content.ts), from the broadcast's content and the
 * values kept with the message (`contactVariables`). So the broadcast's body is stored once, not
 * once per contact.
 */
import { type ParsedContent, parseContent } from '../templates/parsed.js';
import { scanPlaceholders } from '../templates/placeholders.js';
import { type RenderedContent, renderParsed, renderSubject } from '../templates/render.js';

export interface BroadcastContent {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
}

export interface ContactValues {
  readonly email: string;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly unsubscribe_url: string;
}

const FIXED = new Set(['email', 'first_name', 'last_name', 'unsubscribe_url']);
const METADATA = 'metadata.';
const URL_PLACEHOLDER = /\{\{\s*unsubscribe_url\s*\}\}/;

/** Whether a placeholder name is one a broadcast can fill from a contact. */
export function isContactVariable(name: string): boolean {
  return FIXED.has(name) || (name.startsWith(METADATA) && name.length > METADATA.length);
}

/**
 * Problems of the content's placeholders, each `{path, message}`: a name no contact has, or a
 * malformed `{{...}}` (which would otherwise reach every inbox as it is).
 */
export function placeholderProblems(content: Partial<BroadcastContent>): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  for (const [path, text] of Object.entries(content)) {
    if (typeof text !== 'string') continue;
    const scan = scanPlaceholders(text);
    for (const bad of scan.malformed)
      problems.push({ path, message: `holds a malformed placeholder: ${bad}` });
    for (const name of scan.names) {
      if (!isContactVariable(name)) {
        problems.push({
          path,
          message: `uses {{${name}}}, which no contact has; use first_name, last_name, email, metadata.NAME or unsubscribe_url`,
        });
      }
    }
  }
  return problems;
}

/** Names a template declares that a broadcast cannot fill. */
export function unknownVariables(names: readonly string[]): string[] {
  return names.filter((name) => !isContactVariable(name));
}

function htmlFooter(html: string): string {
  if (URL_PLACEHOLDER.test(html)) return html;
  const footer =
    '<p style="margin:24px 0 0;font-size:12px;color:#666666">You receive this because you subscribed. ' +
    '<a href="{{unsubscribe_url}}">Unsubscribe</a></p>';
  const end = html.toLowerCase().lastIndexOf('</body>');
  return end < 0 ? `${html}\n${footer}\n` : `${html.slice(0, end)}${footer}\n${html.slice(end)}`;
}

function textFooter(text: string): string {
  if (URL_PLACEHOLDER.test(text)) return text;
  return `${text.replace(/\s+$/, '')}\n\n--\nUnsubscribe: {{unsubscribe_url}}\n`;
}

/** The content with its unsubscribe footers, parsed once for the whole broadcast. */
export function prepareContent(content: BroadcastContent): ParsedContent {
  return parseContent({
    subject: content.subject,
    html_body: content.html === null ? null : htmlFooter(content.html),
    text_body: content.text === null ? null : textFooter(content.text),
  });
}

/** The template variables of one contact's message: what `messages.variables` keeps for it. */
export function contactVariables(values: ContactValues): Record<string, string> {
  const variables: Record<string, string> = {
    email: values.email,
    first_name: values.first_name ?? '',
    last_name: values.last_name ?? '',
    unsubscribe_url: values.unsubscribe_url,
  };
  for (const [name, value] of Object.entries(values.metadata)) variables[`${METADATA}${name}`] = value;
  return variables;
}

/**
 * One contact's subject, after every check of its whole message (the subject's rules, each body's
 * size). Throws a 400-style AppError when a value makes the message unsendable.
 */
export function personalizeSubject(
  parsed: ParsedContent,
  variables: Readonly<Record<string, string>>,
  maxBodyBytes: number,
): string {
  return renderSubject(parsed, variables, { maxBodyBytes });
}

/** One contact's bodies, from the same values (at composition). */
export function personalizeBodies(
  parsed: ParsedContent,
  variables: Readonly<Record<string, string>>,
): Pick<RenderedContent, 'html' | 'text'> {
  const { html, text } = renderParsed(parsed, variables);
  return { html, text };
}
