/** The message history: search, status filter, sortable columns, pages (GET /v1/dashboard/emails). */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from '../api';
import { Link, navigate, useLocation } from '../router';
import { Empty, PageHeader, Pager, ScrollBox, Select, Show, Status, useLoad, When } from '../ui';

interface Item {
  id: string;
  from: string;
  to: string[];
  subject: string;
  status: string;
  created_at: string;
}
interface Page {
  data: Item[];
  page: number;
  page_size: number;
  total: number;
  total_pages: number;
  sort: string;
  order: 'asc' | 'desc';
}

const STATUSES = [
  'scheduled',
  'awaiting_approval',
  'queued',
  'sending',
  'deferred',
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'cancelled',
  'rejected',
  'suppressed',
];
const COLUMNS: ReadonlyArray<[string, string]> = [
  ['recipient', 'To'],
  ['subject', 'Subject'],
  ['from', 'From'],
  ['status', 'Status'],
  ['created_at', 'Sent'],
];

function paramsOf(search: URLSearchParams) {
  return {
    page: Number(search.get('page') ?? 1) || 1,
    search: search.get('search') ?? '',
    status: search.get('status') ?? '',
    sort: search.get('sort') ?? 'created_at',
    order: search.get('order') ?? 'desc',
    mode: search.get('mode') ?? 'live',
  };
}

function pageRequest(params: ReturnType<typeof paramsOf>): string {
  return `/v1/dashboard/emails${query({
    page: params.page,
    page_size: 25,
    search: params.search,
    status: params.status,
    sort: params.sort,
    order: params.order,
    mode: params.mode,
  })}`;
}

/** The API request the page makes first for these query parameters (main.tsx starts it early). */
export function firstPageRequest(search: URLSearchParams): string {
  return pageRequest(paramsOf(search));
}

export function Messages() {
  const { search } = useLocation();
  const params = paramsOf(search);
  const [text, setText] = useState(params.search);
  const go = (change: Partial<typeof params>) => {
    const next = { ...params, page: 1, ...change };
    navigate(
      `/messages${query({
        page: next.page === 1 ? undefined : next.page,
        search: next.search,
        status: next.status,
        sort: next.sort === 'created_at' ? undefined : next.sort,
        order: next.order === 'desc' ? undefined : next.order,
        mode: next.mode === 'live' ? undefined : next.mode,
      })}`,
    );
  };
  const key = JSON.stringify(params);
  const load = useLoad(() => get<Page>(pageRequest(params)), [key]);
  const ready = load.data !== undefined;
  useEffect(() => {
    // The moment the first page is on screen and usable: read by scripts/bench dashboard-ui.
    if (ready && performance.getEntriesByName('posthorn:messages-ready').length === 0)
      performance.mark('posthorn:messages-ready');
  }, [ready]);
  const sortBy = (column: string) =>
    go({ sort: column, order: params.sort === column && params.order === 'desc' ? 'asc' : 'desc' });

  return (
    <>
      <PageHeader title="Messages" />
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ search: text.trim() });
        }}
      >
        <div class="field grow">
          <label for="message-search">Search</label>
          <input
            id="message-search"
            type="search"
            maxLength={200}
            placeholder="Message ID, sender, recipient or subject"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </div>
        <Select
          label="Status"
          value={params.status}
          options={[['', 'Any status'], ...STATUSES.map((s): [string, string] => [s, s.replace(/_/g, ' ')])]}
          onChange={(e) => go({ status: e.currentTarget.value })}
        />
        <Select
          label="Keys"
          value={params.mode}
          options={[
            ['live', 'Live'],
            ['test', 'Test'],
          ]}
          onChange={(e) => go({ mode: e.currentTarget.value })}
        />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title={params.search || params.status ? 'No message matches.' : 'No messages yet.'}>
              {params.search || params.status
                ? 'Try another search or status.'
                : 'Messages sent with this project’s API keys appear here.'}
            </Empty>
          ) : (
            <>
              <ScrollBox label="Messages">
                <table aria-busy={load.loading}>
                  <caption class="sr-only">
                    Messages, sorted by {params.sort} {params.order === 'asc' ? 'ascending' : 'descending'}
                  </caption>
                  <thead>
                    <tr>
                      {COLUMNS.map(([column, label]) => (
                        <th
                          key={column}
                          scope="col"
                          aria-sort={
                            params.sort === column
                              ? params.order === 'asc'
                                ? 'ascending'
                                : 'descending'
                              : undefined
                          }
                        >
                          <button type="button" class="sort" onClick={() => sortBy(column)}>
                            {label}
                            <span aria-hidden="true">
                              {params.sort === column ? (params.order === 'asc' ? ' ▲' : ' ▼') : ''}
                            </span>
                          </button>
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((m) => (
                      <tr key={m.id}>
                        <td class="clip">{m.to.join(', ')}</td>
                        <td class="clip">
                          <Link to={`/messages/${m.id}`}>{m.subject || '(no subject)'}</Link>
                        </td>
                        <td class="clip">{m.from}</td>
                        <td>
                          <Status value={m.status} />
                        </td>
                        <td class="nowrap">
                          <When at={m.created_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollBox>
              <Pager
                page={page.page}
                totalPages={page.total_pages}
                total={page.total}
                onPage={(p) => go({ page: p })}
              />
            </>
          )
        }
      </Show>
    </>
  );
}
