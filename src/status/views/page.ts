/**
 * `GET /status`: the status as a small HTML page for people. It needs no script and loads nothing
 * from anywhere (one inline style sheet; the route's Content-Security-Policy forbids the rest):
 * the overall state, each component with its last 90 days, open incidents, maintenance, and the
 * incidents of those 90 days with their updates. Every text from the store is HTML-escaped.
 */
import type { IncidentWithUpdates } from '../incidents/store.js';
import { COMPONENT_NAMES, type ComponentState, isClosed } from '../model.js';
import { lastDays } from './days.js';
import { stateLabel } from './rss.js';
import type { ComponentView } from './status-body.js';

const esc = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

export const STATE_TEXT: Readonly<Record<ComponentState, string>> = {
  operational: 'Operational',
  degraded: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
};

export const SUMMARY_TEXT: Readonly<Record<ComponentState, string>> = {
  operational: 'All systems operational',
  degraded: 'Degraded performance',
  partial_outage: 'Partial system outage',
  major_outage: 'Major system outage',
};

const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:46rem;padding:1.5rem;color:#1d232b;background:#fafbfc}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:2rem 0 .5rem}h3{font-size:1rem;margin:0}
.banner{padding:.9rem 1rem;border-radius:6px;color:#fff;font-weight:600}
.operational{background:#1f8f4e}.degraded{background:#c98a00}.partial_outage{background:#d9622b}.major_outage{background:#c9302c}
ul{list-style:none;padding:0;margin:0}.component{padding:.6rem 0;border-bottom:1px solid #e3e6ea}
.row{display:flex;justify-content:space-between;gap:1rem}.state{font-size:.9rem}
.days{display:flex;gap:1px;margin-top:.35rem}.days span{flex:1;height:1.4rem;border-radius:1px}
.incident{background:#fff;border:1px solid #e3e6ea;border-radius:6px;padding:.8rem 1rem;margin:.6rem 0}
.meta{color:#5b6573;font-size:.85rem}.update{margin:.5rem 0 0}.update b{font-weight:600}
footer{margin-top:2rem;color:#5b6573;font-size:.85rem}a{color:#1b5fb4}`;

function time(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function incidentBlock({ incident, updates }: IncidentWithUpdates): string {
  const components = (JSON.parse(incident.components) as string[])
    .map((id) => COMPONENT_NAMES[id as keyof typeof COMPONENT_NAMES] ?? id)
    .join(', ');
  const window =
    incident.kind === 'maintenance' && incident.starts_at !== null && incident.ends_at !== null
      ? ` · ${time(incident.starts_at)} to ${time(incident.ends_at)}`
      : '';
  const items = updates
    .map(
      (u) =>
        `<li class="update"><b>${esc(stateLabel(u.state))}</b> · <span class="meta">${time(u.created_at)}</span><br>${esc(u.message)}</li>`,
    )
    .join('');
  return `<article class="incident" id="${esc(incident.id)}"><h3>${esc(incident.title)}</h3><div class="meta">${esc(components)}${window}${incident.origin === 'automatic' ? ' · opened automatically' : ''}</div><ul>${items}</ul></article>`;
}

export interface PageInput {
  readonly title: string;
  readonly overall: ComponentState;
  readonly components: readonly ComponentView[];
  readonly incidents: readonly IncidentWithUpdates[];
  readonly now: number;
}

export function renderPage(input: PageInput): string {
  const { now } = input;
  const open = input.incidents.filter((i) => i.incident.kind === 'incident' && i.incident.closed_at === null);
  const maintenance = input.incidents.filter(
    (i) => i.incident.kind === 'maintenance' && !isClosed(i.incident.state as 'scheduled'),
  );
  const past = input.incidents.filter(
    (i) => i.incident.closed_at !== null && i.incident.created_at >= now - 90 * 86_400_000,
  );
  const components = input.components
    .map((c) => {
      const days = lastDays(c.id, input.incidents, now)
        .map((d) => `<span class="${d.state}" title="${d.day}: ${STATE_TEXT[d.state]}"></span>`)
        .join('');
      return `<li class="component"><div class="row"><span>${esc(c.name)}${c.under_maintenance ? ' <span class="meta">(maintenance)</span>' : ''}</span><span class="state">${STATE_TEXT[c.status]}</span></div><div class="days" aria-label="last 90 days">${days}</div></li>`;
    })
    .join('');
  const section = (heading: string, list: readonly IncidentWithUpdates[], empty: string) =>
    `<h2>${heading}</h2>${list.length === 0 ? `<p class="meta">${empty}</p>` : list.map(incidentBlock).join('')}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(input.title)} status</title>
<link rel="alternate" type="application/rss+xml" title="${esc(input.title)} status" href="/v1/status/rss.xml">
<style>${STYLE}</style></head><body>
<h1>${esc(input.title)} status</h1>
<div class="banner ${input.overall}">${SUMMARY_TEXT[input.overall]}</div>
<h2>Components</h2><ul>${components}</ul>
${section('Open incidents', open, 'No open incidents.')}
${section('Maintenance', maintenance, 'No maintenance scheduled.')}
${section('Past 90 days', past, 'No incidents in the past 90 days.')}
<footer>Updated ${time(now)} · <a href="/v1/status/rss.xml">RSS feed</a> · <a href="/v1/status">JSON</a></footer>
</body></html>
`;
}
