/**
 * Crash safety under load: sends through the API to a loopback MX, inbound mail to the listener
 * and webhooks to a receiver, while the real serve process is killed with SIGKILL at chosen
 * moments (acceptance, rendering, an SMTP transaction, an outcome commit, a webhook delivery, an
 * inbound message being received, or any time) and started again. Then the promises are checked:
 * every 202 reached the MX, duplicates only of messages a connection was carrying at a kill,
 * exactly one email.delivered event and one webhook event per message, every 250 stored.
 */

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { requireClamd } from '../../helpers/clamd.js';
import { type DnsTestServer, startDnsServer } from '../../helpers/dns-server.js';
import { openSmtp } from '../../inbound/smtp-client.js';
import { rawRequest } from '../fuzz/openapi-fuzz.js';
import { type ServeProcess, spawnPosthorn } from '../serve.js';
import { type ChaosHooks, startChaosHooks } from './hooks.js';
import { startChaosMx } from './mx.js';

export type Phase =
  | 'acceptance'
  | 'rendering'
  | 'smtp-transaction'
  | 'outcome-commit'
  | 'webhook'
  | 'inbound'
  | 'any-time';
const PHASES: readonly Phase[] = [
  'acceptance',
  'rendering',
  'smtp-transaction',
  'outcome-commit',
  'webhook',
  'inbound',
  'any-time',
];

export interface ChaosOptions {
  readonly sends: number;
  readonly kills: number;
  readonly inbound: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly drainTimeoutMs: number;
  /**
   * The stage of the first kill (random when unset). A webhook request cut by a kill is sent
   * again when its lease runs out (the request timeout plus `webhooks.lease_margin`, 5 s here), so
   * a short run that kills in a webhook delivery first finishes that wait sooner.
   */
  readonly firstPhase?: Phase;
  readonly log: (line: string) => void;
}

export interface ChaosSummary {
  kills: number;
  killsByPhase: Record<string, number>;
  accepted: number;
  delivered: number;
  lost: string[];
  duplicated: number;
  duplicatesOutsideKills: string[];
  deliveredEventsWrong: string[];
  webhooksMissing: string[];
  webhooksDuplicated: string[];
  webhookRedeliveries: number;
  inboundAccepted: number;
  /** Inbound messages answered 250 that are not stored: the promise is that there are none. */
  inboundLost: string[];
  /**
   * Inbound messages answered 250 and stored without processing (with the reason): the processor
   * takes a message that killed runs had each started processing for one that crashes it
   * (`MAX_UNFINISHED_RUNS`, docs/decisions/inbound.md) and stores it from its envelope and header
   * fields only, `processing_error` saying why. Stored, so not lost; counted apart.
   */
  inboundStoredUnprocessed: string[];
  /** Why inbound sessions ended without a 250 (a kill cuts some; nothing else should). */
  inboundRefusals: Record<string, number>;
  peakRssMb: number;
  seconds: number;
}

export const DOMAIN = 'chaos.test';
/**
 * How long after the MX's 250 a message counts as still in its transaction: delivery outcomes
 * are committed in groups (delivery/outcomes/outcome-writer.ts, at most PACE_MS = 10 ms apart,
 * plus the commit itself on a loaded host), so a kill in that gap sends those messages again.
 */
const OUTCOME_WINDOW_MS = 1000;
export const EHLO = 'mta.chaos.test';

function random(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function api(
  serve: ServeProcess,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await rawRequest(
    serve.url,
    method,
    path,
    { authorization: `Bearer ${serve.apiKey}`, 'content-type': 'application/json', ...headers },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return {
    status: res.status,
    body: res.text ? (JSON.parse(res.text) as Record<string, any>) : {},
    text: res.text,
  };
}

/** Creates, publishes and verifies the sending domain chaos.test; returns its ID. */
export async function setUpDomain(serve: ServeProcess, dns: DnsTestServer): Promise<string> {
  const created = await api(serve, 'POST', '/v1/domains', { name: DOMAIN });
  if (created.status !== 201) throw new Error(`domain: ${created.text}`);
  for (const record of created.body.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[]) {
    if (record.type === 'TXT') dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  }
  dns.set(DOMAIN, 'MX', [{ preference: 10, exchange: EHLO }]);
  const verified = await api(serve, 'POST', `/v1/domains/${created.body.id}/verify`);
  if (verified.body.status !== 'verified') throw new Error(`verify: ${verified.text}`);
  return created.body.id as string;
}

async function setUp(serve: ServeProcess, dns: DnsTestServer, hooks: ChaosHooks): Promise<void> {
  const domainId = await setUpDomain(serve, dns);
  const route = await api(serve, 'POST', '/v1/inbound/routes', {
    domain_id: domainId,
    local_part: 'support',
  });
  if (route.status !== 201) throw new Error(`route: ${route.text}`);
  const hook = await api(serve, 'POST', '/v1/webhooks', {
    url: hooks.url,
    events: ['email.delivered', 'email.received'],
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.text}`);
}

export async function runChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const started = Date.now();
  const rand = random(options.seed);
  const clamd = await requireClamd();
  const dns = await startDnsServer();
  dns.set(EHLO, 'A', ['127.0.0.1']);
  dns.set('example.net', 'MX', [{ preference: 10, exchange: 'mx.example.net' }]);
  dns.set('mx.example.net', 'A', ['127.0.0.1']);
  const mx = await startChaosMx();
  const hooks = await startChaosHooks();
  const serve = await spawnPosthorn({
    smtp: true,
    sections: {
      dns: { servers: [dns.address], timeout_ms: 1000 },
      delivery: {
        enabled: true,
        hostname: EHLO,
        port: mx.port,
        sending_ips: ['192.0.2.25'],
        retry_schedule: ['1s'],
        poll_interval: '100ms',
        lease: '3s',
        connect_timeout: '3s',
      },
      // A webhook request cut by a kill is sent again when its lease runs out: timeout + margin.
      webhooks: {
        allow_http: true,
        allow_private_targets: true,
        retry_schedule: ['1s'],
        timeout: '2s',
        lease_margin: '5s',
      },
      limits: { sends_per_minute_per_key: 1_000_000, sends_per_hour_per_recipient: 1_000_000 },
      clamav: { host: clamd.host, port: clamd.port },
      smtp_in: { hostname: 'mx.chaos.test' },
    },
  });
  const summary: ChaosSummary = {
    kills: 0,
    killsByPhase: {},
    accepted: 0,
    delivered: 0,
    lost: [],
    duplicated: 0,
    duplicatesOutsideKills: [],
    deliveredEventsWrong: [],
    webhooksMissing: [],
    webhooksDuplicated: [],
    webhookRedeliveries: 0,
    inboundAccepted: 0,
    inboundLost: [],
    inboundStoredUnprocessed: [],
    inboundRefusals: {},
    peakRssMb: 0,
    seconds: 0,
  };
  try {
    await serve.start();
    await setUp(serve, dns, hooks);
    const accepted = new Map<string, string>(); // subject → msg id
    const inboundAccepted = new Set<string>();
    const carriedAtKills = new Set<string>();
    let inFlightPosts = 0;
    let next = 0;
    let stopping = false;
    let after202: (() => void) | undefined;
    let midInboundData: (() => void) | undefined;
    const trackRss = () => {
      summary.peakRssMb = Math.max(summary.peakRssMb, serve.memory().peakMb);
    };

    const sender = async () => {
      while (!stopping) {
        const n = next++;
        if (n >= options.sends) return;
        const subject = `chaos-${n}`;
        for (;;) {
          inFlightPosts += 1;
          try {
            const res = await api(
              serve,
              'POST',
              '/v1/emails',
              { from: `Chaos <hello@${DOMAIN}>`, to: [`r${n}@example.net`], subject, text: `message ${n}` },
              { 'idempotency-key': subject },
            );
            if (res.status === 202) {
              accepted.set(subject, res.body.id as string);
              const w = after202;
              after202 = undefined;
              w?.();
              break;
            }
            if (res.status < 500) throw new Error(`send ${n}: ${res.status} ${res.text}`);
          } catch (error) {
            if ((error as Error).message.startsWith('send ')) throw error;
          } finally {
            inFlightPosts -= 1;
          }
          await sleep(50); // refused or cut off by a kill: the client retries with its key
        }
      }
    };

    let sendersDone = false;
    const inbounder = async () => {
      // Spread over the sends: one inbound message per (sends / inbound) accepted sends.
      const every = Math.max(1, Math.floor(options.sends / Math.max(1, options.inbound)));
      for (let n = 0; n < options.inbound && !stopping; n++) {
        while (!sendersDone && accepted.size < n * every) await sleep(20);
        const subject = `inbound-${n}`;
        try {
          const smtp = await openSmtp(serve.smtpPort);
          try {
            await smtp.command('EHLO client.chaos.example');
            const refused = (reply: { code: number; text: string }, want: number) => {
              if (reply.code === want) return false;
              const key = reply.text.slice(0, 60);
              summary.inboundRefusals[key] = (summary.inboundRefusals[key] ?? 0) + 1;
              return true;
            };
            if (refused(await smtp.command('MAIL FROM:<sender@client.chaos.example>'), 250)) continue;
            if (refused(await smtp.command(`RCPT TO:<support@${DOMAIN}>`), 250)) continue;
            if (refused(await smtp.command('DATA'), 354)) continue;
            const body = `From: Sender <sender@client.chaos.example>\r\nTo: support@${DOMAIN}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@client.chaos.example>\r\n\r\n${'line of text\r\n'.repeat(200)}`;
            await smtp.write(body.slice(0, body.length / 2));
            const w = midInboundData;
            midInboundData = undefined;
            if (w) {
              w();
              await sleep(20);
            }
            const done = await smtp.data(`${body.slice(body.length / 2)}.\r\n`);
            if (!refused(done, 250)) inboundAccepted.add(subject);
          } finally {
            smtp.end();
          }
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
            // The process is down (killed, not yet restarted): the client tries the same message again.
            n -= 1;
            await sleep(100);
            continue;
          }
          // The process was killed mid-session: that message was never accepted.
          const key = (error as Error).message.slice(0, 60);
          summary.inboundRefusals[key] = (summary.inboundRefusals[key] ?? 0) + 1;
        }
        await sleep(20);
      }
    };

    const waitFor = async (phase: Phase): Promise<void> => {
      const timeout = sleep(5000);
      // Ends the acceptance phase's poll when the race is over: once every send was accepted no
      // POST is ever in flight again, and a poll left running kept the test process alive forever.
      let over = false;
      const moment: Promise<unknown> = (() => {
        switch (phase) {
          case 'acceptance':
            return (async () => {
              while (inFlightPosts === 0 && !over) await sleep(1);
            })();
          case 'rendering':
            return new Promise<void>((r) => {
              after202 = () => setTimeout(r, Math.floor(rand() * 30));
            });
          case 'smtp-transaction':
            return mx.nextData(200);
          case 'outcome-commit':
            return mx.nextReply();
          case 'webhook':
            return hooks.nextRequest();
          case 'inbound':
            return new Promise<void>((r) => {
              midInboundData = r;
            });
          default:
            return sleep(Math.floor(rand() * 1500));
        }
      })();
      await Promise.race([moment, timeout]);
      over = true;
    };

    const firstPhase =
      options.firstPhase === undefined
        ? Math.floor(rand() * PHASES.length)
        : PHASES.indexOf(options.firstPhase);
    const killer = async () => {
      for (let k = 0; k < options.kills && !stopping; k++) {
        await sleep(300 + Math.floor(rand() * 1200));
        // Every stage in turn (from a random start), so even a short run kills in each of them.
        const phase = PHASES[(k + firstPhase) % PHASES.length] as Phase;
        await waitFor(phase);
        trackRss();
        await serve.kill();
        for (const s of mx.inFlight(OUTCOME_WINDOW_MS)) carriedAtKills.add(s);
        summary.kills += 1;
        summary.killsByPhase[phase] = (summary.killsByPhase[phase] ?? 0) + 1;
        await sleep(Math.floor(rand() * 300));
        const restart = Date.now();
        await serve.start();
        options.log(
          `chaos: ${Math.round((Date.now() - started) / 1000)} s: kill ${summary.kills} (${phase}), restarted in ${Date.now() - restart} ms; ${accepted.size} accepted, ${mx.seen.size} at the MX`,
        );
      }
    };

    const load = Promise.all([
      Promise.all(Array.from({ length: options.concurrency }, () => sender())).then(() => {
        sendersDone = true;
      }),
      inbounder(),
    ]);
    await killer();
    await load;
    stopping = true;
    summary.accepted = accepted.size;
    summary.inboundAccepted = inboundAccepted.size;
    options.log(
      `chaos: load done (${summary.kills} kills); waiting for delivery of ${accepted.size} messages`,
    );

    // Drain: every accepted message at the MX, every delivered one's webhook, every 250 stored.
    const deadline = Date.now() + options.drainTimeoutMs;
    let lastLog = Date.now();
    const delivered = () => [...accepted.keys()].filter((s) => mx.seen.has(s)).length;
    const hooked = () =>
      new Set(hooks.deliveries.filter((d) => d.type === 'email.delivered').map((d) => d.subject)).size;
    const storedNow = () => {
      const db = new Database(join(serve.dataDir, 'posthorn.sqlite'), { readonly: true });
      try {
        return new Set(
          (db.prepare('select subject from inbound_messages').all() as { subject: string }[]).map(
            (r) => r.subject,
          ),
        );
      } finally {
        db.close();
      }
    };
    const inboundStored = () => {
      const stored = storedNow();
      return [...inboundAccepted].filter((s) => stored.has(s)).length;
    };
    while (
      Date.now() < deadline &&
      (delivered() < accepted.size || hooked() < accepted.size || inboundStored() < inboundAccepted.size)
    ) {
      trackRss();
      if (Date.now() - lastLog >= 10_000) {
        lastLog = Date.now();
        options.log(
          `chaos: ${Math.round((Date.now() - started) / 1000)} s: ${delivered()} of ${accepted.size} delivered, ${hooked()} webhooks`,
        );
      }
      await sleep(500);
    }
    await sleep(1000);
    trackRss();
    await serve.stop();

    const db = new Database(join(serve.dataDir, 'posthorn.sqlite'), { readonly: true });
    try {
      const deliveredEvents = new Map<string, number>();
      for (const row of db
        .prepare(
          "select message_id, count(*) as n from events where type = 'email.delivered' group by message_id",
        )
        .all() as { message_id: string; n: number }[])
        deliveredEvents.set(row.message_id, row.n);
      const stored = new Map(
        (
          db.prepare('select subject, processing_error from inbound_messages').all() as {
            subject: string;
            processing_error: string | null;
          }[]
        ).map((r) => [r.subject, r.processing_error]),
      );
      const hookEvents = new Map<string, Set<string>>();
      for (const d of hooks.deliveries.filter((x) => x.type === 'email.delivered')) {
        const set = hookEvents.get(d.emailId ?? '') ?? new Set();
        set.add(d.webhookId);
        hookEvents.set(d.emailId ?? '', set);
      }
      summary.webhookRedeliveries =
        hooks.deliveries.length - new Set(hooks.deliveries.map((d) => d.webhookId)).size;
      for (const [subject, id] of accepted) {
        const copies = mx.seen.get(subject) ?? 0;
        if (copies === 0) summary.lost.push(`${subject} (${id})`);
        else summary.delivered += 1;
        if (copies > 1) {
          summary.duplicated += copies - 1;
          if (!carriedAtKills.has(subject)) summary.duplicatesOutsideKills.push(subject);
        }
        if (copies > 0 && deliveredEvents.get(id) !== 1)
          summary.deliveredEventsWrong.push(
            `${subject}: ${deliveredEvents.get(id) ?? 0} email.delivered events`,
          );
        const ids = hookEvents.get(id)?.size ?? 0;
        if (copies > 0 && ids === 0) summary.webhooksMissing.push(subject);
        if (ids > 1) summary.webhooksDuplicated.push(`${subject}: ${ids} distinct webhook events`);
      }
      for (const subject of inboundAccepted) {
        const unprocessed = stored.get(subject);
        if (unprocessed === undefined) summary.inboundLost.push(subject);
        else if (unprocessed !== null) summary.inboundStoredUnprocessed.push(`${subject}: ${unprocessed}`);
      }
      if (summary.inboundLost.length > 0) {
        const left = (dir: string) => {
          try {
            return readdirSync(join(serve.dataDir, 'inbound', dir)).length;
          } catch {
            return 0;
          }
        };
        summary.inboundLost.push(
          `(files left in inbound/spool: ${left('spool')}, inbound/failed: ${left('failed')})`,
        );
      }
    } finally {
      db.close();
    }
  } finally {
    summary.seconds = Math.round((Date.now() - started) / 1000);
    await serve.dispose().catch(() => {});
    await mx.close();
    await hooks.close();
    await dns.stop();
  }
  return summary;
}

export function formatSummary(s: ChaosSummary): string {
  const phases = Object.entries(s.killsByPhase)
    .map(([p, n]) => `${p} ${n}`)
    .join(', ');
  return [
    `chaos: kills survived ${s.kills} (${phases})`,
    `messages accepted ${s.accepted}, delivered ${s.delivered}, lost ${s.lost.length}, duplicated ${s.duplicated} (outside a kill's transaction: ${s.duplicatesOutsideKills.length})`,
    `email.delivered events wrong ${s.deliveredEventsWrong.length}, webhooks missing ${s.webhooksMissing.length}, webhook events duplicated ${s.webhooksDuplicated.length}, webhook redeliveries (same webhook-id) ${s.webhookRedeliveries}`,
    `inbound accepted (250) ${s.inboundAccepted}, not stored (lost) ${s.inboundLost.length}, stored without processing (suspected poison after killed runs) ${s.inboundStoredUnprocessed.length}, not accepted ${JSON.stringify(s.inboundRefusals)}`,
    `peak RSS ${s.peakRssMb.toFixed(1)} MB, ${s.seconds} s`,
  ].join('\n');
}
