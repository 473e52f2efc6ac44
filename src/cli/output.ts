/** Plain-text tables for the CLI's human output. */
import type { Io } from './command.js';

export function printTable(io: Io, header: readonly string[], rows: readonly (readonly string[])[]): void {
  if (rows.length === 0) {
    io.out('(none)');
    return;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  io.out(line(header));
  for (const row of rows) io.out(line(row));
}
