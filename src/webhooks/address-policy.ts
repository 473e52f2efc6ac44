/**
 * Which network addresses a webhook may be sent to. Without `webhooks.allow_private_targets`, a
 * customer-supplied URL must not reach this host or its network (SSRF): no address in a
 * special-use range (platform/net/address-ranges.ts: loopback, private, carrier-grade NAT,
 * link-local and the cloud metadata service, "this network", multicast, reserved, documentation).
 */
import { isIP } from 'node:net';
import { specialRange } from '../platform/net/address-ranges.js';

/**
 * Why `address` must not be a webhook target, or undefined when it may be.
 * @example forbiddenReason('169.254.169.254') // 'link-local or metadata'
 */
export function forbiddenReason(address: string): string | undefined {
  if (isIP(address) === 0) return 'not an IP address';
  return specialRange(address)?.name;
}
