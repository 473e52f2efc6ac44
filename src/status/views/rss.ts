/**
 * The incident feed, RSS 2.0 (written by the `feed` package): one item per incident update, newest
 * first, its `guid` the update's ID (stable, not a link), its `pubDate` the update's time in
 * RFC 822 form, its link the incident on the status page. The channel's `lastBuildDate` is the
 * newest update's time, so the same history always renders the same bytes (and the same ETag).
 */
import { Feed } from 'feed';
import type { IncidentWithUpdates } from '../incidents/store.js';

/** Items in the feed: the newest updates; older ones stay in the API's paged history. */
export const FEED_ITEMS = 100;

const STATE_LABEL: Readonly<Record<string, string>> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
  scheduled: 'Scheduled maintenance',
  in_progress: 'Maintenance in progress',
  completed: 'Maintenance completed',
  cancelled: 'Maintenance cancelled',
};

export const stateLabel = (state: string): string => STATE_LABEL[state] ?? state;

export function renderRss(
  title: string,
  publicUrl: string,
  incidents: readonly IncidentWithUpdates[],
): string {
  const base = publicUrl.replace(/\/+$/, '');
  const items = incidents
    .flatMap(({ incident, updates }) => updates.map((update) => ({ incident, update })))
    .sort((a, b) => b.update.seq - a.update.seq)
    .slice(0, FEED_ITEMS);
  const newest = items[0]?.update.created_at ?? 0;
  const feed = new Feed({
    title: `${title} status`,
    description: `Incidents and maintenance of ${title}, one item per update.`,
    id: `${base}/status`,
    link: `${base}/status`,
    language: 'en',
    copyright: '',
    updated: new Date(newest),
    generator: 'Posthorn',
  });
  for (const { incident, update } of items) {
    feed.addItem({
      title: `[${stateLabel(update.state)}] ${incident.title}`,
      id: update.id,
      link: `${base}/status#${incident.id}`,
      description: update.message,
      date: new Date(update.created_at),
    });
  }
  return feed.rss2();
}
