/**
 * Every `issues[].code` the template check can report, with its severity and what it means.
 * docs/template-check.md documents the same list (a test keeps the two in step). `passed` is
 * false when any issue has severity `error`.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface IssueDefinition {
  readonly severity: Severity;
  readonly meaning: string;
}

export const ISSUE_CODES = {
  link_empty: { severity: 'error', meaning: 'A link has no href, or an empty one.' },
  link_placeholder: { severity: 'error', meaning: 'A link points to "#", a stand-in for a real address.' },
  link_unfilled_placeholder: {
    severity: 'error',
    meaning:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: names the foreign syntax literally
      'A link holds template syntax Posthorn does not fill ({x}, ${x}, %X%, *|X|*, [[x]], {{{x}}}, ...).',
  },
  link_unsafe_scheme: { severity: 'error', meaning: 'A link uses javascript:, vbscript:, data: or file:.' },
  link_variable_scheme: {
    severity: 'warning',
    meaning:
      'A link starts with a placeholder, so the value decides its scheme (a javascript: value would pass).',
  },
  link_insecure: { severity: 'warning', meaning: 'A link uses http: instead of https:.' },
  link_relative: {
    severity: 'error',
    meaning: 'A link is relative; an email has no base address to resolve it.',
  },
  link_malformed: { severity: 'error', meaning: 'A link is not a valid URL.' },
  link_example_domain: {
    severity: 'error',
    meaning: 'A link points to a reserved example or test domain (example.com, *.test, localhost, ...).',
  },
  link_ip_address: {
    severity: 'warning',
    meaning: 'A link points to a bare IP address, which spam filters distrust.',
  },
  image_missing_alt: {
    severity: 'warning',
    meaning: 'An image has no alt attribute (use alt="" for decoration).',
  },
  image_missing_src: { severity: 'error', meaning: 'An image has no src.' },
  image_variable_scheme: {
    severity: 'warning',
    meaning: 'An image src starts with a placeholder, so the value decides its scheme.',
  },
  image_insecure: { severity: 'warning', meaning: 'An image loads over http:.' },
  image_relative: { severity: 'error', meaning: 'An image src is relative and cannot load in an email.' },
  image_data_uri: {
    severity: 'warning',
    meaning: 'An image is a data: URI, which Gmail and Outlook do not show.',
  },
  image_example_domain: {
    severity: 'error',
    meaning: 'An image loads from a reserved example or test domain.',
  },
  placeholder_unquoted_attribute: {
    severity: 'warning',
    meaning: 'A placeholder sits inside a tag outside quotes (href={{url}}); quote the attribute value.',
  },
  html_too_large: {
    severity: 'error',
    meaning: 'The HTML is over 102 KB; Gmail clips it, hiding the rest (and the unsubscribe footer).',
  },
  missing_text_part: {
    severity: 'info',
    meaning: 'There is no text_body; a text alternative helps accessibility and some spam filters.',
  },
  compat_script: { severity: 'error', meaning: '<script> is removed by every email client.' },
  compat_event_handler: {
    severity: 'error',
    meaning: 'An on* event attribute (onclick, ...) never runs in email.',
  },
  compat_embedded_content: {
    severity: 'error',
    meaning: '<iframe>, <object>, <embed> or <frame> is not shown.',
  },
  compat_form: { severity: 'warning', meaning: 'Forms and form controls do not work in most email clients.' },
  compat_media: { severity: 'warning', meaning: '<video> and <audio> play in few email clients.' },
  compat_svg: { severity: 'warning', meaning: 'Inline <svg> is not shown by Gmail and Outlook.' },
  compat_external_stylesheet: {
    severity: 'warning',
    meaning:
      'An external stylesheet (<link rel="stylesheet"> or @import) is ignored by most clients; inline the CSS.',
  },
  compat_position: {
    severity: 'warning',
    meaning: 'CSS position (absolute, fixed, relative, sticky) is stripped by Gmail.',
  },
  compat_flexbox_grid: {
    severity: 'warning',
    meaning: 'display: flex or grid is unsupported in Outlook and older clients.',
  },
  no_verified_domain: {
    severity: 'warning',
    meaning: 'The project has no verified sending domain; only the sandbox sender can send.',
  },
  domain_not_verified: {
    severity: 'warning',
    meaning: 'A sending domain of the project is not verified (SPF or DKIM).',
  },
  domain_dmarc_missing: { severity: 'warning', meaning: 'A sending domain publishes no DMARC record.' },
  tracking_dns_failed: {
    severity: 'warning',
    meaning: 'The tracking domain does not resolve, so tracked links would break.',
  },
} as const satisfies Record<string, IssueDefinition>;

export type IssueCode = keyof typeof ISSUE_CODES;

export interface Issue {
  readonly code: IssueCode;
  readonly severity: Severity;
  readonly message: string;
  readonly target?: string;
}

/** An issue of `code` with its catalogued severity. */
export function issue(code: IssueCode, message: string, target?: string): Issue {
  const { severity } = ISSUE_CODES[code];
  return target === undefined ? { code, severity, message } : { code, severity, message, target };
}
