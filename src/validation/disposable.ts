/**
 * Disposable (throwaway) mail domains. The list is the community-maintained one of the
 * disposable-email-domains project, as the `disposable-email-domains-js` package ships it (pinned;
 * a release of Posthorn updates it). An operator extends or overrides it with a file
 * (`validation.disposable_domains_file`): one domain a line, `#` starts a comment, and a line
 * `!domain` takes a domain off the list (a false positive). The file is read at start and again
 * whenever its modification time changes (checked at most every `recheckMs`), so an edit takes
 * effect without a restart. A subdomain of a listed domain is disposable too (`x.mailinator.com`).
 *
 * Only the first read is waited for; later checks answer from the lists loaded so far while a
 * changed file is read, and an unreadable file keeps the last lists that were read (logged once).
 */
import { readFile, stat } from 'node:fs/promises';
import { domainToASCII } from 'node:url';
import { disposableEmailBlocklist } from 'disposable-email-domains-js';
import type { Logger } from '../platform/log.js';

export interface DisposableMatch {
  readonly disposable: boolean;
  /** The listed domain that matched (the address's domain or a parent of it). */
  readonly listed?: string;
  /** Where the listed domain comes from. */
  readonly source?: 'package' | 'operator';
}

interface OperatorList {
  readonly added: ReadonlySet<string>;
  readonly removed: ReadonlySet<string>;
}

const EMPTY: OperatorList = { added: new Set(), removed: new Set() };

/** Parses the operator file; lines that are not domains are reported, not fatal. */
export function parseOperatorList(text: string): OperatorList & { readonly invalid: readonly string[] } {
  const added = new Set<string>();
  const removed = new Set<string>();
  const invalid: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const remove = line.startsWith('!');
    const name = domainToASCII((remove ? line.slice(1) : line).trim().replace(/\.$/, '')).toLowerCase();
    if (name === '' || !name.includes('.')) {
      invalid.push(line);
      continue;
    }
    (remove ? removed : added).add(name);
  }
  return { added, removed, invalid };
}

export class DisposableDomains {
  readonly #packaged: ReadonlySet<string>;
  readonly #file: string;
  readonly #recheckMs: number;
  readonly #log: Logger;
  #operator: OperatorList = EMPTY;
  #mtime = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #reloading: Promise<void> | undefined;
  /** The first read of the operator file, which every check waits for. */
  readonly #loaded: Promise<void>;

  constructor(options: { file: string; recheckMs?: number; log: Logger }) {
    this.#packaged = new Set(disposableEmailBlocklist());
    this.#file = options.file;
    this.#recheckMs = options.recheckMs ?? 10_000;
    this.#log = options.log;
    this.#loaded = this.#reload();
  }

  /** How many domains the packaged list holds (for the decisions page and tests). */
  get packagedCount(): number {
    return this.#packaged.size;
  }

  /** Whether `domain` (lower-case A-labels) or a parent of it is a disposable mail domain. */
  async check(domain: string, now = Date.now()): Promise<DisposableMatch> {
    await this.#loaded;
    this.#maybeReload(now);
    const labels = domain.split('.');
    // From the domain itself up to its second-level parent; a bare TLD is never listed.
    for (let i = 0; i < labels.length - 1; i++) {
      const candidate = labels.slice(i).join('.');
      if (this.#operator.removed.has(candidate)) return { disposable: false };
      if (this.#operator.added.has(candidate))
        return { disposable: true, listed: candidate, source: 'operator' };
      if (this.#packaged.has(candidate)) return { disposable: true, listed: candidate, source: 'package' };
    }
    return { disposable: false };
  }

  #maybeReload(now: number): void {
    if (this.#file === '' || this.#reloading || now - this.#checkedAt < this.#recheckMs) return;
    this.#checkedAt = now;
    this.#reloading = this.#reload().finally(() => {
      this.#reloading = undefined;
    });
  }

  async #reload(): Promise<void> {
    if (this.#file === '') return;
    this.#checkedAt = Date.now();
    try {
      const info = await stat(this.#file);
      if (info.mtimeMs === this.#mtime) return;
      const parsed = parseOperatorList(await readFile(this.#file, 'utf8'));
      this.#operator = parsed;
      this.#mtime = info.mtimeMs;
      this.#log.info(
        { file: this.#file, added: parsed.added.size, removed: parsed.removed.size, invalid: parsed.invalid },
        'disposable domains file loaded',
      );
    } catch (error) {
      if (this.#mtime === -2) return;
      this.#mtime = -2;
      this.#log.warn(
        { err: error, file: this.#file },
        'disposable domains file unreadable; keeping the lists loaded before',
      );
    }
  }
}
