/**
 * The content half of the template check (spec §2.7): links, images, size and client
 * compatibility of one template version. Pure: no I/O, so tables of cases test it directly.
 * template-check.ts adds the domain and tracking DNS findings.
 */
import { placeholderContexts } from '../html-context.js';
import { segments } from '../placeholders.js';
import { compatibilityIssues } from './compat.js';
import { scanHtml } from './html-scan.js';
import { type Issue, issue } from './issues.js';
import { checkAddress } from './links.js';

/** Gmail clips a message whose HTML passes 102 KB (102 × 1024 bytes). */
export const GMAIL_CLIP_BYTES = 102 * 1024;

export interface ContentCheck {
  readonly html_bytes: number;
  readonly link_count: number;
  readonly image_count: number;
  readonly issues: Issue[];
}

/** URLs in plain text: what clients turn into links. */
const TEXT_URL = /\bhttps?:\/\/[^\s<>"')\]]+/gi;

export function checkContent(content: { html_body: string | null; text_body: string | null }): ContentCheck {
  const issues: Issue[] = [];
  let linkCount = 0;
  let imageCount = 0;
  const html = content.html_body ?? '';
  const htmlBytes = Buffer.byteLength(html, 'utf8');

  if (content.html_body !== null) {
    const scan = scanHtml(html);
    for (const tag of scan.tags) {
      if (tag.name === 'a' || tag.name === 'area') {
        // <a name> or <a id> without href marks a place in the page; it is not a link.
        if (!tag.attrs.has('href') && (tag.attrs.has('name') || tag.attrs.has('id'))) continue;
        linkCount++;
        issues.push(...checkAddress(tag.attrs.get('href'), 'link'));
      } else if (tag.name === 'img') {
        imageCount++;
        issues.push(...checkAddress(tag.attrs.get('src'), 'image'));
        if (!tag.attrs.has('alt')) {
          const src = tag.attrs.get('src') ?? '';
          issues.push(
            issue(
              'image_missing_alt',
              'An image has no alt text; screen readers and blocked images need it.',
              src,
            ),
          );
        }
      }
    }
    issues.push(...compatibilityIssues(scan));
    issues.push(...unquotedPlaceholders(html));
    if (htmlBytes > GMAIL_CLIP_BYTES) {
      issues.push(
        issue(
          'html_too_large',
          `The HTML is ${htmlBytes} bytes; Gmail clips messages over ${GMAIL_CLIP_BYTES} bytes.`,
          String(htmlBytes),
        ),
      );
    }
    if (content.text_body === null) {
      issues.push(issue('missing_text_part', 'There is no text_body; add a plain-text version.'));
    }
  }
  if (content.text_body !== null) {
    for (const match of content.text_body.matchAll(TEXT_URL)) {
      linkCount++;
      issues.push(...checkAddress(withoutTrailingPunctuation(match[0]), 'link'));
    }
  }
  return { html_bytes: htmlBytes, link_count: linkCount, image_count: imageCount, issues: dedupe(issues) };
}

/**
 * A URL in text without the sentence's punctuation after it. A loop, not `/[.,;:!?]+$/`: that
 * pattern retries from every character of a long run of dots, quadratic in the run.
 */
function withoutTrailingPunctuation(url: string): string {
  let end = url.length;
  while (end > 0 && '.,;:!?'.includes(url[end - 1] as string)) end--;
  return url.slice(0, end);
}

/** Placeholders inside a tag outside quotes, where a value could add attributes. */
function unquotedPlaceholders(html: string): Issue[] {
  const parts = segments(html);
  const contexts = placeholderContexts(parts);
  const names = parts.filter((part) => typeof part !== 'string').map((part) => part.name);
  return names
    .filter((_, index) => contexts[index] === 'tag')
    .map((name) =>
      issue(
        'placeholder_unquoted_attribute',
        `{{${name}}} sits inside a tag outside quotes; quote the attribute value (href="{{${name}}}"). Posthorn escapes spaces and "=" in the value there, so it cannot add attributes.`,
        `{{${name}}}`,
      ),
    );
}

/** The same finding on the same target is reported once. */
function dedupe(issues: readonly Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((found) => {
    const key = `${found.code}\u0000${found.target ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
