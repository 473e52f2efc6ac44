/**
 * Writes config/posthorn.example.toml from the schema's descriptions and defaults, so the
 * documentation of every key is written once. A test fails when the committed file is stale.
 */
import { stringify } from 'smol-toml';
import { configKeys, configSections, sectionDescription } from './shape.js';
import { configSchema, laneSchema, newLaneDefaults } from './schema.js';

function tomlValue(value: unknown): string {
  return stringify({ v: value }).replace(/^v = /, '').trim();
}

export function exampleToml(): string {
  const defaults = configSchema.parse({}) as unknown as Record<string, Record<string, unknown>>;
  const keys = configKeys();
  const lines = [
    '# Posthorn configuration: every key, with its default.',
    '# Generated from the schema by `posthorn config example`; do not edit by hand.',
    '# Any key may be overridden by an environment variable POSTHORN_<SECTION>_<KEY>,',
    '# e.g. POSTHORN_SERVER_LISTEN=0.0.0.0:8080.',
  ];
  for (const section of configSections()) {
    lines.push('', `# ${sectionDescription(section)}`, `[${section}]`);
    for (const info of keys.filter((k) => k.section === section)) {
      const value = defaults[section]?.[info.key];
      lines.push(`# ${info.description}`);
      lines.push(`# ${info.key} = ${tomlValue(value)}`);
      if (section === 'delivery' && info.key === 'lanes') lines.push(...laneExample());
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A commented `[[delivery.lanes]]` block documenting each lane key (indented so it stays a comment). */
function laneExample(): string[] {
  const lines = [
    '# To change a lane or add one, append a block like this one at the end of the file. A block',
    '# naming a built-in lane changes only the keys it sets; a new lane takes the values shown.',
    '#   [[delivery.lanes]]',
  ];
  const sample: Record<string, unknown> = { name: 'proton', mx_suffixes: ['protonmail.ch'] };
  const defaults: Record<string, unknown> = { ...newLaneDefaults, ...laneSchema.parse({ name: 'proton' }) };
  for (const [key, field] of Object.entries(laneSchema.shape)) {
    const description = (field as { description?: string }).description ?? '';
    lines.push(`#   ${key} = ${tomlValue(sample[key] ?? defaults[key])}   # ${description}`);
  }
  return lines;
}
