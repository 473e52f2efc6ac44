/**
 * Client-compatibility rules: markup and CSS that the big email clients (Gmail, Outlook, Apple
 * Mail, Yahoo) drop or mangle. Each finding names the construct it saw as its `target`.
 */
import type { HtmlScan } from './html-scan.js';
import { type Issue, issue } from './issues.js';

const EMBEDDED = new Set(['iframe', 'object', 'embed', 'frame', 'frameset', 'applet']);
const FORM = new Set(['form', 'input', 'select', 'textarea', 'button']);
const MEDIA = new Set(['video', 'audio']);

export function compatibilityIssues(scan: HtmlScan): Issue[] {
  const issues: Issue[] = [];
  for (const tag of scan.tags) {
    if (tag.name === 'script')
      issues.push(issue('compat_script', '<script> is removed by every email client.', '<script>'));
    else if (EMBEDDED.has(tag.name)) {
      issues.push(
        issue('compat_embedded_content', `<${tag.name}> is not shown by email clients.`, `<${tag.name}>`),
      );
    } else if (FORM.has(tag.name)) {
      issues.push(
        issue(
          'compat_form',
          `<${tag.name}> does not work in most email clients; link to a web page instead.`,
          `<${tag.name}>`,
        ),
      );
    } else if (MEDIA.has(tag.name)) {
      issues.push(
        issue(
          'compat_media',
          `<${tag.name}> plays in few email clients; link to it instead.`,
          `<${tag.name}>`,
        ),
      );
    } else if (tag.name === 'svg') {
      issues.push(issue('compat_svg', 'Inline <svg> is not shown by Gmail and Outlook; use a PNG.', '<svg>'));
    } else if (tag.name === 'link' && /\bstylesheet\b/i.test(tag.attrs.get('rel') ?? '')) {
      const href = tag.attrs.get('href') ?? '';
      issues.push(
        issue(
          'compat_external_stylesheet',
          'External stylesheets are ignored by most email clients; inline the CSS.',
          href,
        ),
      );
    }
    for (const name of tag.attrs.keys()) {
      if (/^on[a-z]+$/.test(name)) {
        issues.push(
          issue(
            'compat_event_handler',
            `The ${name} attribute never runs in an email client.`,
            `<${tag.name} ${name}>`,
          ),
        );
      }
    }
  }
  for (const css of scan.css) {
    for (const match of css.matchAll(/@import\s+[^;]+/gi)) {
      issues.push(
        issue(
          'compat_external_stylesheet',
          '@import is ignored by most email clients; inline the CSS.',
          match[0].trim(),
        ),
      );
    }
    for (const match of css.matchAll(/\bposition\s*:\s*(absolute|fixed|relative|sticky)\b/gi)) {
      issues.push(
        issue('compat_position', `CSS "${match[0]}" is stripped by Gmail; lay out with tables.`, match[0]),
      );
    }
    for (const match of css.matchAll(/\bdisplay\s*:\s*(inline-)?(flex|grid)\b/gi)) {
      issues.push(
        issue(
          'compat_flexbox_grid',
          `CSS "${match[0]}" is unsupported in Outlook; lay out with tables.`,
          match[0],
        ),
      );
    }
  }
  return issues;
}
