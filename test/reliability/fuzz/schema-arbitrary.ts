/**
 * Values for a JSON Schema (the subset the zod-derived OpenAPI document uses: type, enum, const,
 * properties/required/additionalProperties, propertyNames, items, min/max, pattern, format,
 * anyOf/oneOf/allOf, not), as fast-check arbitraries, so failures shrink to a small request.
 * `schemaValue` keeps to the schema; `hostileValue` mixes in values that break it on purpose
 * (wrong types, unknown fields, oversized strings, control characters, CR/LF, NUL).
 */
import fc from 'fast-check';

export type Schema = { readonly [key: string]: unknown };

const hostileStrings = [
  '',
  ' ',
  '\u0000',
  'a\r\nBcc: victim@example.net',
  '../../../../etc/passwd',
  '%2e%2e%2f%2e%2e%2f',
  '\uFFFF\uD800',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  `\${{7*7}}{{7*7}}`,
  'x'.repeat(10_000),
  '😀'.repeat(300),
  'NaN',
  '-1',
  '1e309',
];

/** Strings with the characters a parser trips over, not only letters. */
export const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom(...hostileStrings) },
);

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, min + 60) : min + 40;
  switch (schema.format) {
    case 'email':
      return fc
        .emailAddress()
        .filter((e) => e.length >= min && e.length <= ((schema.maxLength as number) ?? 1e9));
    case 'date-time':
      return fc
        .integer({ min: Date.now() - 86_400_000, max: Date.now() + 40 * 86_400_000 })
        .map((ms) => new Date(ms).toISOString());
    case 'date':
      return fc
        .integer({ min: Date.now() - 90 * 86_400_000, max: Date.now() })
        .map((ms) => new Date(ms).toISOString().slice(0, 10));
    case 'uri':
      return fc.webUrl();
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter(
          (s) =>
            s.length >= min && s.length <= (typeof schema.maxLength === 'number' ? schema.maxLength : 1e9),
        );
    } catch {
      // A pattern the JS engine cannot take as written: fall through to plain strings.
    }
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

function numberFor(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + 1
        : -1_000;
  const hi =
    typeof schema.maximum === 'number'
      ? schema.maximum
      : typeof schema.exclusiveMaximum === 'number'
        ? schema.exclusiveMaximum - 1
        : Math.max(lo, 0) + 1_000;
  const min = Math.max(lo, -Number.MAX_SAFE_INTEGER);
  const max = Math.min(hi, Number.MAX_SAFE_INTEGER);
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) })
    : fc.double({ min, max: Math.max(min, max), noNaN: true });
}

function objectFor(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) {
    if (sub.not !== undefined && Object.keys(sub).length <= 2) continue; // a field documented as refused
    shape[name] = schemaValue(sub, depth + 1);
  }
  const requiredKeys = Object.keys(shape).filter((k) => required.has(k));
  const known = fc.record(shape, { requiredKeys });
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object' && Object.keys(properties).length === 0) {
    const names = schema.propertyNames
      ? stringFor(schema.propertyNames as Schema)
      : fc.string({ minLength: 1, maxLength: 20 });
    return fc.dictionary(names, schemaValue(extra as Schema, depth + 1), { maxKeys: 4 });
  }
  return known as fc.Arbitrary<Record<string, unknown>>;
}

/** A value the schema accepts (as far as a generator can tell: cross-field rules are the server's). */
export function schemaValue(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union && union.length > 0) return fc.oneof(...union.map((s) => schemaValue(s, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0)
    return schemaValue(Object.assign({}, ...(schema.allOf as Schema[])), depth);
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  const arbitraries = type.map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'string':
        return stringFor(schema);
      case 'integer':
        return numberFor(schema, true);
      case 'number':
        return numberFor(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
        const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 4, minLength + 4);
        return fc.array(schemaValue((schema.items ?? {}) as Schema, depth + 1), { minLength, maxLength });
      }
      case 'object':
        return objectFor(schema, depth);
      default:
        return schema.properties ? objectFor(schema, depth) : fc.jsonValue({ maxDepth: 2 });
    }
  });
  return arbitraries.length === 1 ? (arbitraries[0] as fc.Arbitrary<unknown>) : fc.oneof(...arbitraries);
}

/** Breaks one thing about a valid value: a wrong type, an unknown field, a hostile string. */
export function hostileValue(schema: Schema): fc.Arbitrary<unknown> {
  const valid = schemaValue(schema);
  const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  const mutations: fc.Arbitrary<unknown>[] = [
    fc.jsonValue({ maxDepth: 3 }),
    fc
      .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([value, key, extra]) =>
        value && typeof value === 'object' && !Array.isArray(value)
          ? { ...value, [`x_${key}`]: extra }
          : value,
      ),
  ];
  if (properties.length > 0) {
    const replacement = fc.oneof(
      nastyString,
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(null, -1, 1e300, true, [], {}),
    );
    mutations.push(
      fc
        .tuple(valid, fc.constantFrom(...properties), replacement)
        .map(([value, key, bad]) =>
          value && typeof value === 'object' && !Array.isArray(value) ? { ...value, [key]: bad } : value,
        ),
    );
  }
  return fc.oneof(...mutations);
}
