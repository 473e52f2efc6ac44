/**
 * The master key at boot. Capabilities are built with the key, so before any exists this asks
 * each capability's store for one value of every kind sealed under it (a table with sealed
 * columns adds its sample here): while there are none a missing key file may be created,
 * otherwise the key must open them (platform/master-key.ts).
 */
import { unsealDkimKey } from './dkim/key-seal.js';
import { createDomainStore } from './domains/store.js';
import type { Config } from './platform/config/schema.js';
import { unseal } from './platform/crypto.js';
import type { Db, Engine } from './platform/db/database.js';
import { masterKeyPath, openMasterKey, type SealedSample } from './platform/master-key.js';
import { createProjectStore } from './projects/store.js';
import { secretAad } from './webhooks/service.js';
import { createWebhookStore } from './webhooks/store.js';

export async function sealedSamples(db: Db, engine: Engine): Promise<SealedSample[]> {
  const samples: SealedSample[] = [];
  const dkim = await createDomainStore(db).anySealedKey();
  if (dkim) {
    samples.push({
      what: `DKIM private keys (domain ${dkim.domain_id})`,
      open: (key) => unsealDkimKey(key, dkim.private_key_sealed, dkim.domain_id),
    });
  }
  const webhook = await createWebhookStore(db, engine).anySealedSecret();
  if (webhook) {
    samples.push({
      what: `webhook signing secrets (endpoint ${webhook.id})`,
      open: (key) => unseal(key, webhook.secret_sealed, secretAad(webhook.id)),
    });
  }
  // Nothing seals TOTP secrets yet, so there is no AAD to open one with; their presence counts.
  if (await createProjectStore(db).hasSealedTotp()) samples.push({ what: 'TOTP secrets of users' });
  return samples;
}

/** The configured key file, checked against the (migrated) database `db`. */
export async function bootMasterKey(
  config: Pick<Config, 'storage' | 'security'>,
  db: Db,
): Promise<{ key: Buffer; created: boolean; file: string }> {
  const file = masterKeyPath(config.storage.data_dir, config.security.master_key_file);
  return { ...openMasterKey(file, await sealedSamples(db, config.storage.engine)), file };
}
