/**
 * Row types of the event log: the one event record, and the positions of its consumers.
 */
import type { JsonText } from './columns.js';

/** The one event record (DESIGN.md §4); `data` is the webhook payload's `data` object. */
export interface EventsTable {
  id: string;
  project_id: string;
  type: string;
  message_id: string | null;
  recipient: string | null;
  data: JsonText;
  created_at: number;
}

/** Consumers of the event log keep their position here (the webhook dispatcher, analytics). */
export interface EventCursorsTable {
  consumer: string;
  last_event_id: string;
  updated_at: number;
}
