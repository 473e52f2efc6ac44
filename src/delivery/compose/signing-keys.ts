/**
 * Where delivery's DKIM keys come from: the domains capability's keys of the From domain, as the
 * render task takes them, one object per key set (so its identity, signing-identity.ts, is worked
 * out once); unsigned for the shared sandbox sender; "domain deleted" when the project no longer
 * has the domain the message was accepted from.
 */
import { parseMailbox } from '../../platform/mail-address.js';
import { normalizeEmail } from '../../platform/normalize-email.js';
import type { MessageRow } from '../queue/store.js';
import type { RenderDkim } from './render-task.js';

/** How a message is signed: with its From domain's keys, unsigned, or not at all sent. */
export type Signing =
  | { readonly kind: 'sign'; readonly dkim: RenderDkim }
  /** The shared sandbox sender: no domain of the project, so no keys. */
  | { readonly kind: 'unsigned' }
  /** The project no longer has the domain the message was accepted from. */
  | { readonly kind: 'domain_deleted' };

/** Where a message's DKIM keys come from (the domains capability). */
export interface SigningKeysPort {
  signingFor(message: Pick<MessageRow, 'project_id' | 'from_email' | 'from_domain'>): Promise<Signing>;
}

/** The domains capability, as delivery uses it. */
export interface DomainKeysSource {
  signingKeys(
    projectId: string,
    domain: string,
  ): Promise<
    | {
        readonly domain: string;
        readonly selector: string;
        readonly privateKeyPem: string;
        readonly ed25519?: { readonly selector: string; readonly privateKeyPem: string };
      }
    | undefined
  >;
  /** Whether the project has a domain of this name, whatever its status or keys. */
  hasDomain(projectId: string, domain: string): Promise<boolean>;
}

/** The normalized address of `sandbox.from`, as the send path compares senders with it. */
function sandboxSenderEmail(from: string): string | undefined {
  const parsed = parseMailbox(from);
  return parsed.ok ? normalizeEmail(parsed.value.email) : undefined;
}

type DomainKeys = NonNullable<Awaited<ReturnType<DomainKeysSource['signingKeys']>>>;

/** The render task's DKIM fields: RSA first (verifiers that check one look at the top), then Ed25519. */
function renderDkim(found: DomainKeys): RenderDkim {
  const rsa = {
    selector: found.selector,
    privateKeyPem: found.privateKeyPem,
    algorithm: 'rsa-sha256' as const,
  };
  const ed = found.ed25519
    ? [
        {
          selector: found.ed25519.selector,
          privateKeyPem: found.ed25519.privateKeyPem,
          algorithm: 'ed25519-sha256' as const,
        },
      ]
    : [];
  return { domain: found.domain, keys: [rsa, ...ed] };
}

export function createSigningKeys(domains: DomainKeysSource, sandboxFrom: string): SigningKeysPort {
  const sandboxSender = sandboxSenderEmail(sandboxFrom);
  const signings = new WeakMap<object, Signing>();
  return {
    async signingFor(message): Promise<Signing> {
      const found = await domains.signingKeys(message.project_id, message.from_domain);
      if (!found) {
        // A message is accepted from a domain of its project or from the sandbox sender, which
        // has none; a domain a recheck marked failed still has its keys.
        const sandbox = sandboxSender !== undefined && normalizeEmail(message.from_email) === sandboxSender;
        return sandbox || (await domains.hasDomain(message.project_id, message.from_domain))
          ? { kind: 'unsigned' }
          : { kind: 'domain_deleted' };
      }
      // One Signing per key set the domains capability caches: the same object each time, so its
      // identity (signing-identity.ts) is computed once.
      let signing = signings.get(found);
      if (signing === undefined) {
        signing = { kind: 'sign', dkim: renderDkim(found) };
        signings.set(found, signing);
      }
      return signing;
    },
  };
}
