/**
 * Fixtures of the inbound store's contract test (store-contract.test.ts): a migrated store of
 * either engine with a project, transactions held open as a node's are, and rows as received mail
 * writes them.
 */
import type { ExecutionContext } from 'ava';
import { createInboundStore, type InboundStore } from '../../src/inbound/store.js';
import { createOutboundLookup } from '../../src/inbound/threads/outbound.js';
import { createThreads, type ThreadInput } from '../../src/inbound/threads/threads.js';
import type { Db, Engine, Store } from '../../src/platform/db/database.js';
import { newId } from '../../src/platform/ids.js';
import { migratedStore, seedProject } from '../helpers/engines.js';

export const T0 = 1_900_000_000_000;
export const PROJECT = 'prj_1';

export async function inboundStore(t: ExecutionContext, engine: Engine) {
  const store = await migratedStore(t, engine);
  await seedProject(store.db, T0, PROJECT);
  const inbound = createInboundStore(store);
  return { store, inbound, threads: createThreads(inbound, createOutboundLookup(store.db)) };
}

/** A transaction that stays open until `commit()`; on SQLite it holds the one connection. */
export async function open(store: Store) {
  const trx = await store.db.startTransaction().execute();
  return { trx: trx as Db, commit: () => trx.commit().execute(), rollback: () => trx.rollback().execute() };
}

/** Runs `work` in a transaction of its own, started now and committed when `work` is done. */
export async function inTransaction<R>(store: Store, work: (trx: Db) => Promise<R>): Promise<R> {
  const { trx, commit, rollback } = await open(store);
  try {
    const result = await work(trx);
    await commit();
    return result;
  } catch (error) {
    await rollback();
    throw error;
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const threadCount = async (store: Store) =>
  Number(
    (
      await store.db
        .selectFrom('inbound_threads')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

export const mail = (
  messageId: string | null,
  references: string[],
  at = T0,
): ThreadInput & { inboundId: string } => ({
  projectId: PROJECT,
  inboundId: newId('inb', at),
  messageId,
  references,
  subject: 'Re: Invoice',
  at,
});

export const receipt = (id: string) => ({
  id,
  kind: 'routed',
  mail_from: 'a@sender.example',
  rcpt_to: '["support@acme.example"]',
  remote_ip: '192.0.2.1',
  size_bytes: 10,
  received_at: T0,
  processed_at: T0,
});

export const message = (inbound: InboundStore, trx: Db, id: string, threadId: string, text: string) =>
  inbound.insertMessage(trx, {
    id,
    project_id: PROJECT,
    receipt_id: 'rcv_1',
    route_id: null,
    thread_id: threadId,
    mail_from: 'a@sender.example',
    rcpt_to: '[]',
    from_header: 'A <a@sender.example>',
    from_email: 'a@sender.example',
    to: '[]',
    cc: '[]',
    reply_to: '[]',
    subject: `Subject ${text}`,
    text,
    html: null,
    headers: '[]',
    date: null,
    message_id_header: null,
    in_reply_to: null,
    references: '[]',
    auth: '{}',
    remote_ip: '192.0.2.1',
    helo: 'client.example',
    tls: 0,
    size_bytes: 10,
    created_at: T0,
    parse_error: null,
    processing_error: null,
  });
