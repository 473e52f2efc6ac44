/**
 * Walks the config schema as data: sections, keys, descriptions, defaults and leaf types. Used by
 * the env override parser, the example generator and the redaction in `config print`.
 */
import type { z } from 'zod';
import { configSchema } from './schema.js';

export type LeafKind = 'string' | 'number' | 'boolean' | 'array' | 'other';

export interface KeyInfo {
  readonly section: string;
  readonly key: string;
  readonly description: string;
  readonly kind: LeafKind;
  readonly secret: boolean;
  readonly schema: z.ZodType;
}

interface Walkable {
  def: { type: string; innerType?: Walkable; shape?: Record<string, Walkable> };
  description?: string;
  shape?: Record<string, Walkable>;
  meta?: () => Record<string, unknown> | undefined;
}

function unwrap(schema: Walkable): Walkable {
  let current = schema;
  while (
    current.def.innerType &&
    ['default', 'optional', 'nullable', 'prefault'].includes(current.def.type)
  ) {
    current = current.def.innerType;
  }
  return current;
}

function kindOf(schema: Walkable): LeafKind {
  const type = unwrap(schema).def.type;
  if (type === 'string' || type === 'enum') return 'string';
  if (type === 'number' || type === 'int' || type === 'union') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'array') return 'array';
  return 'other';
}

function shapeOf(schema: Walkable): Record<string, Walkable> {
  return unwrap(schema).shape ?? {};
}

export function sectionDescription(section: string): string {
  const sectionSchema = shapeOf(configSchema as unknown as Walkable)[section];
  return sectionSchema ? (unwrap(sectionSchema).description ?? sectionSchema.description ?? '') : '';
}

export function configSections(): string[] {
  return Object.keys(shapeOf(configSchema as unknown as Walkable));
}

export function configKeys(): KeyInfo[] {
  const out: KeyInfo[] = [];
  for (const [section, sectionSchema] of Object.entries(shapeOf(configSchema as unknown as Walkable))) {
    for (const [key, leaf] of Object.entries(shapeOf(sectionSchema))) {
      const inner = unwrap(leaf);
      const meta = leaf.meta?.() ?? inner.meta?.() ?? {};
      out.push({
        section,
        key,
        description: leaf.description ?? inner.description ?? '',
        kind: kindOf(leaf),
        secret: meta.secret === true,
        schema: leaf as unknown as z.ZodType,
      });
    }
  }
  return out;
}
