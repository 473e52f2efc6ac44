/**
 * Row types of sending domains and their DKIM keys.
 */
import type { JsonText } from './columns.js';

export type DomainStatus = 'pending' | 'verified' | 'failed';

/** A sending domain; `checks` holds the last DNS verification result per record (JSON). */
export interface DomainsTable {
  id: string;
  project_id: string;
  /** Lower case A-labels, no trailing dot. */
  name: string;
  region: string;
  status: DomainStatus;
  checks: JsonText;
  created_at: number;
  updated_at: number;
  verified_at: number | null;
  last_checked_at: number | null;
}

/** A domain's DKIM key per algorithm; the private key only ever sealed (src/dkim/key-seal.ts). */
export interface DomainDkimKeysTable {
  domain_id: string;
  algorithm: 'rsa-sha256' | 'ed25519-sha256';
  selector: string;
  /** Base64, as published in `p=`. */
  public_key: string;
  private_key_sealed: string;
  created_at: number;
}
