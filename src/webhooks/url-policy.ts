/**
 * Checks an endpoint URL when it is created or changed: https:// unless `webhooks.allow_http`, no
 * credentials in it, and not an IP literal of a forbidden range. Host names are judged by the
 * dispatcher at every send, against what they resolve to then (sender.ts), because DNS can
 * change after creation; this check only gives an early, clear answer for the obvious cases.
 */
import { isIP } from 'node:net';
import { badRequest } from '../platform/http/errors.js';
import { forbiddenReason } from './address-policy.js';

export interface UrlPolicy {
  readonly allowHttp: boolean;
  readonly allowPrivate: boolean;
}

/** Returns the normalized URL or throws a 400 naming the problem. */
export function checkEndpointUrl(raw: string, policy: UrlPolicy): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url: is not an absolute URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw badRequest(
      policy.allowHttp
        ? 'url: must be http:// or https://.'
        : 'url: must be https:// (webhooks.allow_http is off).',
    );
  }
  if (url.username || url.password) throw badRequest('url: must not contain a user name or password.');
  if (!url.hostname) throw badRequest('url: has no host.');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!policy.allowPrivate && isIP(host)) {
    const why = forbiddenReason(host);
    if (why) throw badRequest(`url: ${host} is a ${why} address; webhooks may not target it.`);
  }
  url.hash = '';
  return url.toString();
}
