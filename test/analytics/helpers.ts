/** Shared by the analytics tests: points in time by UTC day, events appended as the pipeline does, the report. */
import { DAY_MS, dayNumber } from '../../src/analytics/days.js';
import type { EventType } from '../../src/events/types.js';
import { newId } from '../../src/platform/ids.js';
import type { Posthorn } from '../helpers/server.js';

/** A point in time `daysAgo` UTC days before today, `ms` after that day's midnight. */
export const at = (daysAgo: number, ms = 0) => (dayNumber(Date.now()) - daysAgo) * DAY_MS + 3_600_000 + ms;

export function recorder(ph: Posthorn, projectId = ph.owner.projectId) {
  const { events } = ph.server.services;
  return {
    message(when: number) {
      return newId('msg', when);
    },
    async add(
      type: EventType,
      messageId: string,
      recipient: string | null,
      when: number,
      data: Record<string, unknown> = {},
    ) {
      await events.append(ph.server.kernel.db, {
        projectId,
        type,
        messageId,
        recipient,
        at: when,
        data: { email_id: messageId, ...data },
      });
      events.notify();
    },
  };
}

export async function report(ph: Posthorn, days?: number, key?: string) {
  const res = await ph.request(
    'GET',
    `/v1/analytics${days === undefined ? '' : `?days=${days}`}`,
    key ? { key } : {},
  );
  if (res.status !== 200) throw new Error(`analytics: ${res.status} ${res.text}`);
  return res.body;
}
