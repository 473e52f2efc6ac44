/**
 * The send path's port into approvals (emails/ports.ts `SendHolds`): a send made with an OAuth
 * access token waits for a person unless its project's policy says otherwise (approval off, or
 * the client trusted), and each held message gets its approval row in the transaction that
 * writes it, expiring after `approvals.expire_after`.
 */
import type { SendHolds } from '../emails/ports.js';
import { newId } from '../platform/ids.js';
import type { ApprovalStore } from './store.js';
import type { PolicyLookup } from './store-policy.js';

export function createSendHolds(
  store: ApprovalStore,
  policies: PolicyLookup,
  expireAfterMs: number,
): SendHolds {
  return {
    async holds(principal) {
      const policy = await policies.find(principal.projectId);
      return policy.requireApproval && !policy.trustedClients.includes(principal.oauth.clientId);
    },
    async record(trx, held) {
      await store.insert(trx, {
        id: newId('apr', held.at),
        project_id: held.projectId,
        message_id: held.messageId,
        client_id: held.by.clientId,
        client_name: held.by.clientName,
        grant_id: held.by.grantId,
        user_id: held.by.userId,
        user_email: held.by.userEmail,
        status: 'pending',
        note: null,
        decided_by: null,
        decided_at: null,
        expires_at: held.at + expireAfterMs,
        created_at: held.at,
      });
    },
  };
}
