/** The login-code mail: subject, plain text and HTML in the requested locale. */
import { escapeHtml, fill, LOGIN_CODE_TEXT, type Locale, RTL } from './locales.js';

export interface LoginCodeMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export function loginCodeMail(
  locale: Locale,
  code: string,
  expiresAt: number,
  product: string,
): LoginCodeMail {
  const strings = LOGIN_CODE_TEXT[locale];
  const time = new Date(expiresAt).toISOString().slice(11, 16);
  const values = { code, product, time };
  const [intro, expiry, ignore] = [strings.intro, strings.expiry, strings.ignore].map((s) => fill(s, values));
  const dir = RTL.has(locale) ? 'rtl' : 'ltr';
  const html =
    `<!doctype html><html lang="${locale}" dir="${dir}"><body>` +
    `<p>${escapeHtml(intro ?? '')}</p>` +
    `<p style="font-size:28px;font-weight:bold;letter-spacing:4px" dir="ltr">${code}</p>` +
    `<p>${escapeHtml(expiry ?? '')}</p><p>${escapeHtml(ignore ?? '')}</p></body></html>`;
  return {
    subject: fill(strings.subject, values),
    text: `${intro}\n\n    ${code}\n\n${expiry}\n\n${ignore}\n`,
    html,
  };
}
