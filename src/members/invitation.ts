/** The mail a new member receives, in the locale the inviter's client prefers (Accept-Language). */
import { escapeHtml, fill, LOCALES, type Locale, RTL } from '../auth/login/locales.js';
import type { Role } from '../platform/db/tables.js';
import { INVITATION_TEXT } from './locales.js';

/** The first of the eleven locales the header names (`fr-CA,fr;q=0.9,en;q=0.8` → fr), else en. */
export function localeFrom(acceptLanguage: string | undefined): Locale {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^q=([\d.]+)$/.exec(p.trim())?.[1]).find((v) => v !== undefined);
      return { lang: (tag ?? '').toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q) };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q);
  const found = ranked.find((entry) => (LOCALES as readonly string[]).includes(entry.lang));
  return (found?.lang as Locale | undefined) ?? 'en';
}

export function invitationMail(
  locale: Locale,
  values: { org: string; role: Role; url: string; email: string; product: string },
) {
  const strings = INVITATION_TEXT[locale];
  const added = fill(strings.added, values);
  const signIn = fill(strings.signIn, values);
  const dir = RTL.has(locale) ? 'rtl' : 'ltr';
  return {
    subject: fill(strings.subject, values),
    text: `${added}\n\n${signIn}\n`,
    html: `<!doctype html><html lang="${locale}" dir="${dir}"><body><p>${escapeHtml(added)}</p><p>${escapeHtml(signIn)}</p></body></html>`,
  };
}
