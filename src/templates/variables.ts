/**
 * A send's `variables` against the published version's declared ones (spec §2.1: "must be
 * exactly the variables declared by the published template version").
 */
import { badRequest, type ErrorDetail } from '../platform/http/errors.js';

/**
 * The difference between the declared variables and the provided values, as 400 details; empty
 * when they match exactly.
 */
export function variableMismatch(
  declared: readonly string[],
  provided: Readonly<Record<string, unknown>>,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const given = Object.keys(provided);
  for (const name of declared) {
    if (!Object.hasOwn(provided, name))
      details.push({ path: `variables.${name}`, message: 'is declared by the template but missing' });
  }
  const known = new Set(declared);
  for (const name of given) {
    if (!known.has(name))
      details.push({ path: `variables.${name}`, message: 'is not declared by the template' });
  }
  for (const name of given) {
    if (known.has(name) && typeof provided[name] !== 'string')
      details.push({ path: `variables.${name}`, message: 'must be a string' });
  }
  return details;
}

/** Throws a 400 naming every missing, extra or non-string variable. */
export function assertExactVariables(
  declared: readonly string[],
  provided: Readonly<Record<string, unknown>>,
): void {
  const details = variableMismatch(declared, provided);
  if (details.length === 0) return;
  const missing = details
    .filter((d) => d.message.includes('missing'))
    .map((d) => d.path.slice('variables.'.length));
  const extra = details
    .filter((d) => d.message.includes('not declared'))
    .map((d) => d.path.slice('variables.'.length));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.map((n) => `"${n}"`).join(', ')}`);
  if (extra.length > 0) parts.push(`not declared ${extra.map((n) => `"${n}"`).join(', ')}`);
  if (parts.length === 0) parts.push('every value must be a string');
  throw badRequest(
    `variables: must be exactly the template's declared variables (${parts.join('; ')}).`,
    details,
  );
}
