/** Durations in config are written like "500ms", "30s", "5m", "4h", "4d". */
const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * @example parseDuration('5m') // 300000
 */
export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}
