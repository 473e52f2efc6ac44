/**
 * Typo suggestions for the domains of common mailbox providers (`gmial.com` → `gmail.com`), with
 * ZooTools' maintained fork of Kicksend's mailcheck (sift3 edit distance over the domain, its
 * second-level part and its top-level part). Only a suggestion that lands on a known provider
 * domain is offered, and never for a domain that is itself one: a business domain one edit away
 * from another TLD (`acme.io` → `acme.com`) is no typo, and `mac.com` is not a misspelt `mail.com`.
 */
import { POPULAR_DOMAINS, POPULAR_TLDS, run } from '@zootools/email-spell-checker';

/** Provider domains beside the package's own list (regional sites, Apple, Microsoft, GMX, ...). */
const MORE_PROVIDERS = [
  'gmail.com',
  'googlemail.com',
  'hotmail.com',
  'hotmail.co.uk',
  'hotmail.fr',
  'hotmail.de',
  'hotmail.it',
  'hotmail.es',
  'outlook.com',
  'outlook.fr',
  'outlook.de',
  'outlook.es',
  'live.com',
  'live.co.uk',
  'live.fr',
  'msn.com',
  'yahoo.com',
  'yahoo.co.uk',
  'yahoo.fr',
  'yahoo.de',
  'yahoo.es',
  'yahoo.it',
  'yahoo.co.jp',
  'yahoo.com.br',
  'ymail.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'gmx.at',
  'web.de',
  't-online.de',
  'mail.com',
  'mail.ru',
  'yandex.ru',
  'yandex.com',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'sfr.fr',
  'libero.it',
  'virgilio.it',
  'uol.com.br',
  'bol.com.br',
  'naver.com',
  'daum.net',
  '163.com',
  '126.com',
  'qq.com',
  'fastmail.com',
  'zoho.com',
  'tutanota.com',
  'hey.com',
  'comcast.net',
  'verizon.net',
  'att.net',
  'sbcglobal.net',
  'btinternet.com',
  'sky.com',
  'shaw.ca',
  'rogers.com',
  'bigpond.com',
  'optusnet.com.au',
  'rediffmail.com',
];

const PROVIDERS: readonly string[] = [...new Set([...POPULAR_DOMAINS, ...MORE_PROVIDERS])];
const KNOWN: ReadonlySet<string> = new Set(PROVIDERS);

/** Edits (insert, delete, substitute, swap two neighbours) between `a` and `b` (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The provider domain `domain` (lower-case A-labels) is likely a misspelling of, if any. A domain
 * known as a service of its own (a listed disposable domain: `strict`) is taken for a typo only one
 * edit away: `gmial.com` squatters run throwaway mail, but `yopmail.com` is no `ymail.com`.
 */
export function suggestDomain(
  domain: string,
  options: { readonly strict?: boolean } = {},
): string | undefined {
  if (KNOWN.has(domain)) return undefined;
  const suggestion = run({
    email: `x@${domain}`,
    domains: [...PROVIDERS],
    // The package's own second-level names: with every provider's there (gmail, ...), a known
    // name under a known TLD (gmail.co) would pass as correct.
    topLevelDomains: POPULAR_TLDS,
  });
  if (!suggestion || !KNOWN.has(suggestion.domain) || suggestion.domain === domain) return undefined;
  return editDistance(domain, suggestion.domain) <= (options.strict ? 1 : 2) ? suggestion.domain : undefined;
}
