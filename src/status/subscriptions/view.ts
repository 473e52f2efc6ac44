/** A status subscription as the API returns it: never a token or a secret (the 201 adds the secret once). */
import type { SubscriptionRow } from './store.js';

export function subscriptionView(row: SubscriptionRow) {
  return {
    id: row.id,
    channel: row.channel,
    destination: row.destination,
    state: row.state,
    created_at: new Date(row.created_at).toISOString(),
    verified_at: row.verified_at === null ? null : new Date(row.verified_at).toISOString(),
  };
}
