import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import test from 'ava';
import { createDomain, publish, record, startDomainEnv } from './env.js';

function pemBody(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
}

test('the DKIM private key is never in a response and is sealed in the database file', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { dkim: { ed25519: true } });
  const created = await ph.request('POST', '/v1/domains', { body: { name: 'example.com' } });
  publish(dns, created.body);
  const responses = [
    created,
    await ph.request('GET', `/v1/domains/${created.body.id}`),
    await ph.request('GET', '/v1/domains'),
    await ph.request('POST', `/v1/domains/${created.body.id}/verify`),
  ];
  const keys = await ph.server.services.domains.signingKeys(ph.owner.projectId, 'example.com');
  if (!keys?.ed25519) return t.fail('no signing keys');
  const secrets = [pemBody(keys.privateKeyPem), pemBody(keys.ed25519.privateKeyPem)];
  // Any 40-character run of the PKCS#8 body would betray the key; check the whole body and slices.
  const probes = secrets
    .flatMap((body) => [body, body.slice(100, 140), body.slice(-60, -20)])
    .filter((p) => p.length >= 40);
  t.true(probes.length >= 5);
  for (const res of responses) {
    t.false(res.text.includes('PRIVATE KEY'));
    for (const probe of probes) t.false(res.text.includes(probe));
  }

  await ph.server.kernel.store.sqlite.pragma('wal_checkpoint(PASSIVE)');
  const file = ph.server.kernel.store.file;
  const bytes = Buffer.concat([file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f)));
  t.true(bytes.length > 0);
  const text = bytes.toString('latin1');
  for (const probe of probes)
    t.false(text.includes(probe), 'a slice of the private key is readable in the database');
  t.false(text.includes('PRIVATE KEY'));
  const sealed = ph.server.kernel.store.sqlite
    .prepare('select private_key_sealed from domain_dkim_keys where domain_id = ?')
    .all(created.body.id) as Array<{ private_key_sealed: string }>;
  t.is(sealed.length, 2);
  for (const row of sealed) t.regex(row.private_key_sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
});

test('signingKeys unseals the key whose public half is the published DKIM record', async (t) => {
  const { ph } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  const keys = await ph.server.services.domains.signingKeys(ph.owner.projectId, 'EXAMPLE.com.');
  if (!keys) return t.fail('no keys');
  t.is(keys.domain, 'example.com');
  t.is(keys.algorithm, 'rsa-sha256');
  t.is(keys.ed25519, undefined);
  const dkim = record(domain, 'dkim');
  t.is(dkim.host, `${keys.selector}._domainkey.example.com`);
  const publicDer = createPublicKey(keys.privateKeyPem)
    .export({ type: 'spki', format: 'der' })
    .toString('base64');
  t.is(dkim.value, `v=DKIM1; k=rsa; p=${publicDer}`);
  t.is(await ph.server.services.domains.signingKeys(ph.owner.projectId, 'other.example.com'), undefined);
});
