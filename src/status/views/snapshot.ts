/**
 * The status as it is served: kept in memory and rendered ahead of the requests, so `GET
 * /v1/status`, the feed and the page cost a lookup, never a query. It is rebuilt when something
 * changes: a component's measured state (`setMeasurements`), an incident (`reload`, after this
 * process's own change or one the command line made), or the UTC day (the page's 90 days).
 *
 * A component shows the worse of what is measured and what its open incidents say: an operator
 * who knows more than the measurements (a provider rejecting mail as spam) declares it, and the
 * resolution hands the component back to the measurements.
 */
import { createHash } from 'node:crypto';
import type { Measurement } from '../components/measure.js';
import type { IncidentService } from '../incidents/service.js';
import type { IncidentWithUpdates } from '../incidents/store.js';
import { COMPONENT_NAMES, type ComponentId, type ComponentState, IMPACTS, worse, worst } from '../model.js';
import { renderPage, SUMMARY_TEXT } from './page.js';
import { renderRss } from './rss.js';
import { type ComponentView, statusBody } from './status-body.js';

/** Incidents kept in memory (newest first); pages further back are read from the store. */
export const HISTORY_IN_MEMORY = 1000;
export const DEFAULT_PAGE = 20;

export interface Rendered {
  readonly data: Buffer;
  readonly etag: string;
  readonly contentType: string;
}

interface Shown {
  readonly state: ComponentState;
  readonly since: number;
}

function rendered(text: string, contentType: string): Rendered {
  const data = Buffer.from(text, 'utf8');
  return {
    data,
    contentType,
    etag: `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`,
  };
}

export function createSnapshot(deps: {
  readonly incidents: IncidentService;
  readonly title: string;
  readonly publicUrl: string;
}) {
  const { incidents } = deps;
  let measured = new Map<ComponentId, Measurement>();
  const shown = new Map<ComponentId, Shown>();
  let history: IncidentWithUpdates[] = [];
  let historyComplete = true;
  let open: IncidentWithUpdates[] = [];
  let json: Rendered | undefined;
  let rss: Rendered | undefined;
  let html: Rendered | undefined;
  let renderedDay = -1;
  let updatedAt = Date.now();
  let loading: Promise<void> | undefined;

  function displayed(now: number): ComponentView[] {
    const views: ComponentView[] = [];
    for (const [id, measurement] of measured) {
      let state = measurement.state;
      let maintenance = false;
      for (const { incident } of open) {
        if (!(JSON.parse(incident.components) as string[]).includes(id)) continue;
        if (incident.kind === 'incident' && (IMPACTS as readonly string[]).includes(incident.impact))
          state = worse(state, incident.impact as ComponentState);
        if (incident.kind === 'maintenance' && incident.state === 'in_progress') maintenance = true;
      }
      const before = shown.get(id);
      const since = before && before.state === state ? before.since : now;
      shown.set(id, { state, since });
      views.push({
        id,
        name: COMPONENT_NAMES[id],
        status: state,
        updated_at: new Date(since).toISOString(),
        under_maintenance: maintenance,
      });
    }
    return views;
  }

  function render(now: number): void {
    const components = displayed(now);
    const overall = worst(components.map((c) => c.status));
    updatedAt = now;
    const page = history.slice(0, DEFAULT_PAGE);
    json = rendered(
      JSON.stringify(
        statusBody({
          overall,
          summary: SUMMARY_TEXT[overall],
          updatedAt: now,
          components,
          open,
          page,
          hasMore: history.length > DEFAULT_PAGE || !historyComplete,
        }),
      ),
      'application/json; charset=utf-8',
    );
    rss = rendered(renderRss(deps.title, deps.publicUrl, history), 'application/rss+xml; charset=utf-8');
    html = rendered(
      renderPage({ title: deps.title, overall, components, incidents: history, now }),
      'text/html; charset=utf-8',
    );
    renderedDay = Math.floor(now / 86_400_000);
  }

  /** Counts this node's own changes to the incidents: a load begun before one is stale. */
  let generation = 0;
  let loadedGeneration = 0;

  async function load(): Promise<void> {
    const begun = generation;
    const [page, stillOpen] = await Promise.all([
      incidents.list(HISTORY_IN_MEMORY + 1),
      incidents.store.open(),
    ]);
    historyComplete = page.length <= HISTORY_IN_MEMORY;
    history = page.slice(0, HISTORY_IN_MEMORY);
    open = stillOpen;
    render(Date.now());
    loadedGeneration = begun;
    if (begun !== generation) json = undefined;
  }

  const ensure = async () => {
    while (!json) {
      loading ??= load().finally(() => {
        loading = undefined;
      });
      await loading;
    }
  };

  // Read-your-writes: a change made on this node is served by its next request, not only once the
  // status engine's next pass has reloaded (on PostgreSQL that pass may wait behind a measurement).
  incidents.onChange(() => {
    generation += 1;
    json = undefined;
  });

  return {
    /** Reads the incidents again and renders (after any change to them). */
    async reload(): Promise<void> {
      await load();
    },

    /** Takes the latest measurements; renders again when a component's shown state changed. */
    setMeasurements(next: ReadonlyMap<ComponentId, Measurement>, now = Date.now()): boolean {
      const before = [...measured].map(([id, m]) => `${id}:${m.state}`).join();
      measured = new Map(next);
      const after = [...measured].map(([id, m]) => `${id}:${m.state}`).join();
      if (before !== after || Math.floor(now / 86_400_000) !== renderedDay) {
        if (json || before !== '') render(now);
        // Rendered from incidents older than a change of this node's: the next read loads them.
        if (loadedGeneration !== generation) json = undefined;
        return true;
      }
      return false;
    },

    /** The shown state of each measured component. */
    shownStates(): ReadonlyMap<ComponentId, ComponentState> {
      return new Map([...shown].map(([id, s]) => [id, s.state]));
    },

    measurements: (): ReadonlyMap<ComponentId, Measurement> => measured,

    /** The open incidents and maintenance windows as last loaded. */
    open: (): readonly IncidentWithUpdates[] => open,

    async json(): Promise<Rendered> {
      await ensure();
      return json as Rendered;
    },
    async rss(): Promise<Rendered> {
      await ensure();
      return rss as Rendered;
    },
    async html(): Promise<Rendered> {
      await ensure();
      return html as Rendered;
    },

    /** A page of the history other than the first: from memory while it reaches, else the store. */
    async page(
      limit: number,
      after: string | undefined,
    ): Promise<{ page: IncidentWithUpdates[]; hasMore: boolean }> {
      await ensure();
      const start = after === undefined ? 0 : history.findIndex((i) => i.incident.id === after) + 1;
      if (start > 0 || after === undefined) {
        const end = start + limit;
        if (end < history.length || historyComplete)
          return { page: history.slice(start, end), hasMore: end < history.length || !historyComplete };
      }
      const rows = await incidents.list(limit + 1, after);
      return { page: rows.slice(0, limit), hasMore: rows.length > limit };
    },

    /** The body of `GET /v1/status` for a page other than the default one. */
    async body(limit: number, after: string | undefined) {
      const { page, hasMore } = await this.page(limit, after);
      const components = [...measured.keys()].map((id) => {
        const s = shown.get(id) as Shown;
        return {
          id,
          name: COMPONENT_NAMES[id],
          status: s.state,
          updated_at: new Date(s.since).toISOString(),
          under_maintenance: open.some(
            (i) =>
              i.incident.kind === 'maintenance' &&
              i.incident.state === 'in_progress' &&
              (JSON.parse(i.incident.components) as string[]).includes(id),
          ),
        };
      });
      const overall = worst(components.map((c) => c.status));
      return statusBody({
        overall,
        summary: SUMMARY_TEXT[overall],
        updatedAt,
        components,
        open,
        page,
        hasMore,
      });
    },
  };
}

export type Snapshot = ReturnType<typeof createSnapshot>;
