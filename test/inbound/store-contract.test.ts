/**
 * The inbound hot store's storage port (inbound/store-hot.ts) against both adapters, SQLite's
 * prepared statements and PostgreSQL's queries, on a real migrated store of each: what two nodes
 * processing mail at once into one database must not break (a receipt committed once, a thread's
 * Message-ID held by one thread, a reply joining the thread of a message committing beside it),
 * and what PostgreSQL's text cannot hold. Two transactions at once stand for two nodes: on SQLite
 * the second waits for the first's connection, on PostgreSQL for its locks.
 */
import test from 'ava';
import { newId } from '../../src/platform/ids.js';
import { ENGINES } from '../helpers/engines.js';
import {
  inboundStore,
  inTransaction,
  mail,
  message,
  open,
  PROJECT,
  pause,
  receipt,
  T0,
  threadCount,
} from './store-env.js';

for (const engine of ENGINES) {
  test(`${engine}: a spool transaction's receipt commits once; a second commit of it fails and changes nothing`, async (t) => {
    const { store, inbound } = await inboundStore(t, engine);
    await inTransaction(store, (trx) => inbound.insertReceipt(trx, receipt('rcv_1')));
    await t.throwsAsync(
      inTransaction(store, (trx) => inbound.insertReceipt(trx, { ...receipt('rcv_1'), kind: 'dsn' })),
    );
    t.is(await inbound.receiptKind('rcv_1'), 'routed');
    t.is(await inbound.receiptKind('rcv_2'), undefined);
  });

  test(`${engine}: a Message-ID claimed by two threads at once stays with the first; the second is told which`, async (t) => {
    const { store, inbound } = await inboundStore(t, engine);
    const key = {
      project_id: PROJECT,
      message_id_header: 'a@sender.example',
      direction: 'inbound' as const,
      at: T0,
    };
    const thread = (id: string) => ({
      id,
      project_id: PROJECT,
      subject: 'S',
      created_at: T0,
      last_message_at: T0,
    });
    const first = await open(store);
    await inbound.insertThread(first.trx, thread('thr_1'));
    t.is(
      await inbound.addThreadMessageId(first.trx, { ...key, thread_id: 'thr_1', ref_id: 'inb_1' }),
      'thr_1',
    );
    const second = inTransaction(store, async (trx) => {
      await inbound.insertThread(trx, thread('thr_2'));
      return inbound.addThreadMessageId(trx, { ...key, thread_id: 'thr_2', ref_id: 'inb_2' });
    });
    await pause(200);
    await first.commit();
    t.is(await second, 'thr_1');
  });

  test(`${engine}: two replies to one sent message, processed at once, start one thread with it`, async (t) => {
    const { store, threads } = await inboundStore(t, engine);
    const sent = newId('msg', T0);
    await store.db
      .insertInto('messages')
      .values({
        id: sent,
        project_id: PROJECT,
        api_key_id: null,
        mode: 'live',
        traffic: 'transactional',
        status: 'delivered',
        from_header: 'a@acme.example',
        from_email: 'a@acme.example',
        from_domain: 'acme.example',
        reply_to: null,
        subject: 'Invoice',
        headers: '{}',
        tags: '{}',
        template_id: null,
        template_version: null,
        variables: null,
        send_at: null,
        created_at: T0,
        updated_at: T0,
      })
      .execute();
    const references = [`${sent.toLowerCase()}@acme.example`];
    const first = await open(store);
    const one = await threads.joinInbound(first.trx, mail('r1@sender.example', references));
    const two = inTransaction(store, (trx) =>
      threads.joinInbound(trx, mail('r2@sender.example', references)),
    );
    await pause(200);
    await first.commit();
    t.is(await two, one);
    t.is(await threadCount(store), 1);
  });

  test(`${engine}: a reply processed while the message it answers commits beside it joins that message's thread`, async (t) => {
    const { store, threads } = await inboundStore(t, engine);
    const first = await open(store);
    const original = await threads.joinInbound(first.trx, mail('a@sender.example', []));
    const reply = inTransaction(store, (trx) =>
      threads.joinInbound(trx, mail('b@sender.example', ['a@sender.example'], T0 + 1)),
    );
    await pause(200);
    await first.commit();
    t.is(await reply, original);
  });

  test(`${engine}: a thread's last message time never moves back when older mail is processed late`, async (t) => {
    const { store, inbound, threads } = await inboundStore(t, engine);
    const threadId = await inTransaction(store, (trx) =>
      threads.joinInbound(trx, mail('a@x.example', [], T0 + 50)),
    );
    await inTransaction(store, (trx) =>
      threads.joinInbound(trx, mail('b@x.example', ['a@x.example'], T0 + 10)),
    );
    t.is((await inbound.getThread(PROJECT, threadId))?.last_message_at, T0 + 50);
    await inTransaction(store, (trx) =>
      threads.joinInbound(trx, mail('c@x.example', ['a@x.example'], T0 + 90)),
    );
    t.is((await inbound.getThread(PROJECT, threadId))?.last_message_at, T0 + 90);
  });

  test(`${engine}: a received message holding NUL characters is stored (as U+FFFD where text cannot hold NUL)`, async (t) => {
    const { store, inbound, threads } = await inboundStore(t, engine);
    await inTransaction(store, async (trx) => {
      const threadId = await threads.joinInbound(trx, mail('nul\u0000@x.example', ['p\u0000@x.example']));
      await message(inbound, trx, 'inb_1', threadId, 'a\u0000b');
      await inbound.insertReceipt(trx, { ...receipt('rcv_1'), mail_from: 'a\u0000@sender.example' });
    });
    const stored = await inbound.getMessage(PROJECT, 'inb_1');
    t.is(stored?.text, engine === 'sqlite' ? 'a\u0000b' : 'a\uFFFDb');
    t.is(await inbound.receiptKind('rcv_1'), 'routed');
  });

  test(`${engine}: pending attachments are due for a scan oldest first, and a verdict changes a pending one only`, async (t) => {
    const { store, inbound, threads } = await inboundStore(t, engine);
    await inTransaction(store, async (trx) => {
      const threadId = await threads.joinInbound(trx, mail(null, []));
      await message(inbound, trx, 'inb_1', threadId, 'x');
      await inbound.insertAttachments(
        trx,
        ['att_2', 'att_1'].map((id, position) => ({
          id,
          project_id: PROJECT,
          message_id: 'inb_1',
          position,
          filename: `${id}.pdf`,
          content_type: 'application/pdf',
          content_id: null,
          disposition: 'attachment',
          size_bytes: 3,
          sha256: 'x',
          scan_state: 'pending' as const,
          content: Buffer.from([0, 1, 2]),
          created_at: T0,
        })),
      );
    });
    t.deepEqual(await inbound.attachmentContent('att_1'), Buffer.from([0, 1, 2]));
    const due = await inbound.claimScans(T0, 10, 60_000);
    t.deepEqual(
      due.map((a) => a.id),
      ['att_1', 'att_2'],
    );
    await inTransaction(store, (trx) => inbound.recordScan(trx, 'att_1', { state: 'clean', at: T0 + 1 }));
    await inTransaction(store, (trx) =>
      inbound.recordScan(trx, 'att_1', { state: 'infected', signature: 'Eicar\u0000', at: T0 + 2 }),
    );
    const meta = (await inbound.attachmentsOf(['inb_1'])).find((row) => row.id === 'att_1');
    t.like(meta, { id: 'att_1', scan_state: 'clean', scan_signature: null, scanned_at: T0 + 1 });
  });
}

test('postgresql: two nodes claiming scans take different attachments; a claim given back is due again', async (t) => {
  const { store, inbound, threads } = await inboundStore(t, 'postgresql');
  await inTransaction(store, async (trx) => {
    const threadId = await threads.joinInbound(trx, mail(null, []));
    await message(inbound, trx, 'inb_1', threadId, 'x');
    await inbound.insertAttachments(
      trx,
      ['att_1', 'att_2', 'att_3'].map((id, position) => ({
        id,
        project_id: PROJECT,
        message_id: 'inb_1',
        position,
        filename: null,
        content_type: 'text/plain',
        content_id: null,
        disposition: 'attachment',
        size_bytes: 1,
        sha256: 'x',
        scan_state: 'pending' as const,
        content: Buffer.from('x'),
        created_at: T0,
      })),
    );
  });
  const [a, b] = await Promise.all([inbound.claimScans(T0, 2, 60_000), inbound.claimScans(T0, 2, 60_000)]);
  const claimed = [...(a ?? []), ...(b ?? [])].map((row) => row.id).sort();
  t.deepEqual(claimed, ['att_1', 'att_2', 'att_3'], 'each attachment claimed once');
  t.deepEqual(await inbound.claimScans(T0 + 1, 10, 60_000), [], 'claimed until the lease runs out');
  await inbound.releaseScans(['att_2'], T0 + 2);
  t.deepEqual(
    (await inbound.claimScans(T0 + 2, 10, 60_000)).map((row) => row.id),
    ['att_2'],
  );
  t.deepEqual(
    (await inbound.claimScans(T0 + 60_001, 10, 60_000)).map((row) => row.id),
    ['att_1', 'att_3'],
    'a claim whose node never answered is due again after its lease',
  );
});
