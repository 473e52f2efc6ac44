/**
 * Microsoft SNDS automated data access: with the key an SNDS account issues, `data.aspx?key=KEY`
 * answers a CSV of yesterday's activity per sending IP (RCPT and DATA commands, recipients, the
 * spam filter's verdict GREEN/YELLOW/RED, the complaint rate, trap hits, a sample HELO), and
 * `ipStatus.aspx?key=KEY` the IP ranges Outlook.com blocks. The key is sent only to the
 * configured base URL and never appears in an error (URLs are named without their query).
 */
import { parse } from 'csv-parse/sync';
import {
  type ProviderClient,
  type ProviderItem,
  ProviderRefused,
  ProviderUnavailable,
  providerRequest,
} from './http.js';

export interface SndsOptions {
  readonly apiUrl: string;
  readonly timeoutMs: number;
}

const PROVIDER = 'provider_b_snds';
const KEY = /^[A-Za-z0-9-]{8,128}$/;

/** "11/26/2026 0:00" (SNDS's US date and time) → "2026-11-26". */
export function sndsDay(value: string): string | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(value.trim());
  return m ? `${m[3]}-${(m[1] ?? '').padStart(2, '0')}-${(m[2] ?? '').padStart(2, '0')}` : undefined;
}

function rows(text: string): string[][] {
  // SNDS answers an HTML page, not CSV, to a key it does not know.
  if (/^\s*</.test(text))
    throw new ProviderRefused('Microsoft SNDS did not accept the key (it answered a web page).');
  try {
    return parse(text, { relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch {
    throw new ProviderUnavailable('Microsoft SNDS answered something that is not CSV.');
  }
}

const count = (value: string | undefined) => (value === undefined || value === '' ? null : Number(value));

export function dataItems(text: string): ProviderItem[] {
  return rows(text).flatMap((row): ProviderItem[] => {
    const [
      ip,
      start,
      end,
      rcpt,
      data,
      recipients,
      filter,
      complaints,
      trapStart,
      trapEnd,
      traps,
      helo,
      jmr,
      comments,
    ] = row;
    const day = sndsDay(start ?? '');
    if (!ip || !day) return [];
    return [
      {
        kind: 'traffic',
        subject: ip,
        day,
        data: {
          activity_start: start,
          activity_end: end ?? null,
          rcpt_commands: count(rcpt),
          data_commands: count(data),
          message_recipients: count(recipients),
          filter_result: filter || null,
          complaint_rate: complaints || null,
          trap_period_start: trapStart || null,
          trap_period_end: trapEnd || null,
          trap_hits: count(traps),
          sample_helo: helo || null,
          jmr_p1_sender: jmr || null,
          comments: comments || null,
        },
      },
    ];
  });
}

export function statusItems(text: string, day: string): ProviderItem[] {
  return rows(text).flatMap((row): ProviderItem[] => {
    const [first, last, blocked, details] = row;
    if (!first) return [];
    return [
      {
        kind: 'ip_status',
        subject: `${first}-${last ?? first}`,
        day,
        data: {
          first_ip: first,
          last_ip: last ?? first,
          blocked: /^yes$/i.test(blocked ?? ''),
          details: details ?? '',
        },
      },
    ];
  });
}

export function sndsClient(options: SndsOptions): ProviderClient {
  const get = async (page: string, key: string) => {
    if (!KEY.test(key)) throw new ProviderRefused('An SNDS key is 8 to 128 letters, digits and dashes.');
    const response = await providerRequest(
      PROVIDER,
      `${options.apiUrl}/${page}?key=${encodeURIComponent(key)}`,
      { headers: { accept: 'text/csv, text/plain' } },
      options.timeoutMs,
    );
    return response.text();
  };
  return {
    async verify(credential) {
      rows(await get('data.aspx', credential.trim()));
    },
    async fetch(credential, now) {
      const key = credential.trim();
      const data = dataItems(await get('data.aspx', key));
      const status = statusItems(await get('ipStatus.aspx', key), new Date(now).toISOString().slice(0, 10));
      return [...data, ...status];
    },
  };
}
