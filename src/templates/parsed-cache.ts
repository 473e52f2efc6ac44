/**
 * The parsed content of template versions (parsed.ts), kept by version ID and bounded by count and
 * by weight, least recently used out first. Versions are immutable, so an entry never goes stale
 * and nothing invalidates one; a deleted template's versions simply stop being asked for and age
 * out. The cache must never decide whether a version may be rendered: the caller reads the
 * template and its published version's ID first (one query), and only then asks here for its
 * parse (`cached`), reading the version's content for `get` only when it is not kept.
 */
import { type ParsedContent, parseContent, type TemplateContent } from './parsed.js';

export interface ParsedCacheLimits {
  readonly maxEntries: number;
  /** The sum of the entries' `weight` (about their memory, in bytes). */
  readonly maxBytes: number;
}

/** 500 versions or 32 MiB, whichever comes first: a 50 KB template weighs about 100 KB. */
export const DEFAULT_PARSED_CACHE: ParsedCacheLimits = { maxEntries: 500, maxBytes: 32 * 1024 * 1024 };

export interface ParsedCache {
  /** The kept parse of version `versionId` (a use: it becomes the most recent), or undefined. */
  cached(versionId: string): ParsedContent | undefined;
  /** The parse of version `versionId`, whose content is `content`: cached, or parsed now (and kept when it fits). */
  get(versionId: string, content: TemplateContent): ParsedContent;
  /** Whether version `versionId` is kept (not a use: it changes no entry's recency). */
  has(versionId: string): boolean;
  clear(): void;
  readonly size: number;
  /** The sum of the entries' weights. */
  readonly bytes: number;
}

export function createParsedCache(limits: ParsedCacheLimits = DEFAULT_PARSED_CACHE): ParsedCache {
  // A Map iterates in insertion order; a hit is moved to the end, so the first key is the least recent.
  const entries = new Map<string, ParsedContent>();
  let bytes = 0;
  const evict = () => {
    while (entries.size > limits.maxEntries || bytes > limits.maxBytes) {
      const [oldest, parsed] = entries.entries().next().value as [string, ParsedContent];
      entries.delete(oldest);
      bytes -= parsed.weight;
    }
  };
  const cached = (versionId: string) => {
    const hit = entries.get(versionId);
    if (hit) {
      entries.delete(versionId);
      entries.set(versionId, hit);
    }
    return hit;
  };
  return {
    cached,
    get(versionId, content) {
      const hit = cached(versionId);
      if (hit) return hit;
      const parsed = parseContent(content);
      // One version heavier than the whole budget would only empty the cache to no use.
      if (parsed.weight <= limits.maxBytes && limits.maxEntries > 0) {
        entries.set(versionId, parsed);
        bytes += parsed.weight;
        evict();
      }
      return parsed;
    },
    has(versionId) {
      return entries.has(versionId);
    },
    clear() {
      entries.clear();
      bytes = 0;
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
