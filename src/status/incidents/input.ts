/**
 * Checks of what an operator (or the automatic monitor) writes into an incident: the same rules
 * whether it comes from the command line or from code, each refusal a 400 naming the field.
 */
import { badRequest } from '../../platform/http/errors.js';
import { COMPONENTS, type ComponentId, IMPACTS, type Impact, isComponent } from '../model.js';

export const MAX_TITLE_CHARS = 200;
export const MAX_MESSAGE_CHARS = 5000;

export function checkTitle(value: string): string {
  const title = value.trim();
  if (title === '') throw badRequest('title: must not be empty.');
  if (title.length > MAX_TITLE_CHARS)
    throw badRequest(`title: must be at most ${MAX_TITLE_CHARS} characters (it has ${title.length}).`);
  return title;
}

export function checkMessage(value: string): string {
  const message = value.trim();
  if (message === '') throw badRequest('message: must not be empty.');
  if (message.length > MAX_MESSAGE_CHARS)
    throw badRequest(`message: must be at most ${MAX_MESSAGE_CHARS} characters (it has ${message.length}).`);
  return message;
}

export function checkComponents(values: readonly string[]): ComponentId[] {
  if (values.length === 0) throw badRequest(`component: name at least one of ${COMPONENTS.join(', ')}.`);
  const out: ComponentId[] = [];
  for (const value of values) {
    if (!isComponent(value))
      throw badRequest(`component: "${value}" is not a component; components: ${COMPONENTS.join(', ')}.`);
    if (!out.includes(value)) out.push(value);
  }
  return out;
}

export function checkImpact(value: string): Impact {
  if (!(IMPACTS as readonly string[]).includes(value))
    throw badRequest(`impact: must be one of ${IMPACTS.join(', ')}.`);
  return value as Impact;
}
