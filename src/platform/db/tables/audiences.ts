/**
 * Row types of audiences, contacts and their consent history (migration 0024).
 */
import type { Generated } from 'kysely';
import type { JsonText } from './columns.js';

export type ContactStatus = 'subscribed' | 'unsubscribed';

export interface AudiencesTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

export interface ContactsTable {
  id: string;
  audience_id: string;
  project_id: string;
  /** Normalized (platform/normalize-email.ts): unique within the audience. */
  email: string;
  first_name: string | null;
  last_name: string | null;
  /** JSON object of strings. */
  metadata: JsonText;
  status: ContactStatus;
  /** The latest subscription's consent (its source and time); the history is contact_consents. */
  consent_source: string;
  consent_at: number;
  unsubscribed_at: number | null;
  created_at: number;
  updated_at: number;
}

/** One subscription or unsubscription of a contact; append-only. */
export interface ContactConsentsTable {
  id: Generated<number>;
  contact_id: string;
  kind: ContactStatus;
  /** The consent source given, or how the contact left (`one_click`, `link`, `mailto`, `api`). */
  source: string;
  /** When it happened (consent_at as given; the time of an unsubscription). */
  at: number;
  /** The broadcast whose link or address the contact used to leave, if any. */
  broadcast_id: string | null;
  /** JSON: what else is known (the client's address and user agent of a web unsubscription). */
  detail: JsonText | null;
  recorded_at: number;
}
