/**
 * The save-time rule of spec §2.6 that a schema cannot express: the placeholders used in
 * subject, html_body and text_body are exactly the declared `variables`. A 400 names every
 * undeclared placeholder, every unused variable and the malformed `{{...}}` (each distinct one,
 * up to 20 a field, then how many more).
 */
import { badRequest, type ErrorDetail } from '../platform/http/errors.js';
import { scanPlaceholders } from './placeholders.js';

export interface TemplateFields {
  readonly subject: string;
  readonly html_body?: string | undefined;
  readonly text_body?: string | undefined;
  readonly variables: readonly string[];
}

const FIELDS = ['subject', 'html_body', 'text_body'] as const;

export function placeholderProblems(fields: TemplateFields): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const usedIn = new Map<string, string>();
  for (const field of FIELDS) {
    const text = fields[field];
    if (text === undefined) continue;
    const scan = scanPlaceholders(text);
    for (const bad of scan.malformed) {
      details.push({ path: field, message: `${bad} is not a valid placeholder; write {{name}}` });
    }
    const unshown = scan.malformedCount - scan.malformed.length;
    if (unshown > 0) details.push({ path: field, message: `has ${unshown} more invalid {{ or }} sequences` });
    for (const name of scan.names) if (!usedIn.has(name)) usedIn.set(name, field);
  }
  const declared = new Set(fields.variables);
  for (const [name, field] of usedIn) {
    if (!declared.has(name))
      details.push({ path: field, message: `uses {{${name}}}, which variables does not declare` });
  }
  for (const [index, name] of fields.variables.entries()) {
    if (!usedIn.has(name)) {
      details.push({
        path: `variables[${index}]`,
        message: `"${name}" is declared but no placeholder uses it`,
      });
    }
  }
  return details;
}

export function assertPlaceholdersMatch(fields: TemplateFields): void {
  const details = placeholderProblems(fields);
  if (details.length === 0) return;
  const sentence = details.map((d) => `${d.path} ${d.message}`).join('; ');
  throw badRequest(`The placeholders must be exactly the declared variables: ${sentence}.`, details);
}
