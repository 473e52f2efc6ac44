/**
 * Row types of open and click tracking (migration 0023): per-project settings and recorded hits.
 */
import type { Defaulted } from './columns.js';

/** Where a project's custom tracking domain stands in DNS (tracking/domain-check.ts). */
export type TrackingDnsStatus = 'none' | 'pending' | 'verified' | 'failed';

export interface TrackingSettingsTable {
  project_id: string;
  opens_enabled: number;
  clicks_enabled: number;
  retention_days: number;
  /** A host under one of the project's domains, or null for the default tracking host. */
  custom_domain: string | null;
  dns_status: TrackingDnsStatus;
  dns_reason: string | null;
  dns_checked_at: number | null;
  updated_at: number;
}

export type TrackingHitKind = 'open' | 'click';

/** One fetch of a pixel or a tracked link, as classified (tracking/classify/). */
export interface TrackingHitsTable {
  id: Defaulted<number>;
  project_id: string;
  message_id: string;
  recipient: string | null;
  kind: TrackingHitKind;
  link_url: string | null;
  link_index: number | null;
  at: number;
  method: string;
  /** The client address truncated: IPv4 to its /24, IPv6 to its /48 (`203.0.113.0/24`). */
  ip_prefix: string | null;
  /** The user agent's class only (`browser`, `apple_mail_proxy`, `bot`, ...), never the string. */
  agent_class: string;
  machine: number;
  machine_reason: string | null;
  /** The image proxy that fetched an open (`apple`, `gmail`, `yahoo`), or null. */
  proxy: string | null;
  event_id: string | null;
}
