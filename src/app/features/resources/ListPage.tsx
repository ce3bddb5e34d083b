// The list page of any kind: text, label-selector and Status filters, wide
// columns, sorting, all kept in the URL.
import { useMemo, useState } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { count } from '../../../lib/words.ts';
import { parseSelector, matchesRequirements, SelectorParseError, type Requirement } from '../../../lib/labels.ts';
import { useList } from '../../api/hooks.ts';
import { useCanI } from '../../api/access.ts';
import { ErrorAlert } from '../../components/common.tsx';
import { ResourceTable, columnsFor } from '../../components/ResourceTable.tsx';
import { useFilteredRows } from '../../components/filteredRows.ts';
import { StatusFilter, stateColumnOf, statusPasses } from '../../components/StatusFilter.tsx';
import { useTally } from '../../components/tally.ts';
import { Link, navigate, useSearchParam, withSearch } from '../../routes/router.tsx';
import { detailPath, type KindView } from './types.ts';

/**
 * How many rows are shown: of the objects read when a filter hides some, and while the list is
 * still read in pages, of how many the server holds when it tells ("12,200 of 60,084").
 */
function countText(shown: number, list: { items: readonly unknown[]; partial: boolean; total?: number }) {
  const [s, read] = [count(shown), count(list.items.length)];
  if (!list.partial) return shown === list.items.length ? s : `${s} of ${read}`;
  if (shown === list.items.length && list.total !== undefined) return `${s} of ${count(list.total)}, loading more…`;
  return `${s}${shown !== list.items.length ? ` of ${read}` : ''} so far, loading more…`;
}

const noParts = () => [];

export function ListPage({ view, namespace }: { view: KindView; namespace?: string }) {
  const { kind } = view;
  const [q, setQ] = useSearchParam('q');
  const [labels, setLabels] = useSearchParam('l');
  const [sort, setSort] = useSearchParam('sort');
  const [wide, setWide] = useSearchParam('wide');
  const [status, setStatus] = useSearchParam('status');
  const [labelDraft, setLabelDraft] = useState(labels);
  const list = useList(kind, namespace);
  const canCreate = useCanI('create', kind, namespace);
  const allNamespaces = kind.scope === 'Namespaced' && !namespace;

  const selector = useMemo((): { reqs: Requirement[]; error?: string } => {
    try {
      return { reqs: parseSelector(labelDraft) };
    } catch (e) {
      return { reqs: [], error: e instanceof SelectorParseError ? e.message : String(e) };
    }
  }, [labelDraft]);

  const match = useMemo(() => {
    const text = q.trim().toLowerCase();
    const reqs = selector.error ? [] : selector.reqs;
    // No filter: the list itself, not a copy of 50,000 rows on every watch update.
    if (!text && !reqs.length) return undefined;
    return (o: KubeObject) =>
      (!text || (o.metadata.name ?? '').toLowerCase().includes(text) || (o.metadata.namespace ?? '').toLowerCase().includes(text)) && matchesRequirements(reqs, o.metadata.labels);
  }, [q, selector]);
  // A watch update tests only the objects it replaced against the filter (filteredRows.ts).
  const named = useFilteredRows(list.items, list.data?.change, match);

  // Then the Status filter, for the kinds with a state column (Pods, Nodes, Namespaces: Status;
  // VolumeAttachments: Attached): its counts are of the rows the name and labels let through, so they
  // say what choosing a value would show.
  const state = useMemo(() => stateColumnOf(kind), [kind]);
  const statuses = useTally(named.items, named.change, state?.parts ?? noParts);
  const byStatus = useMemo(() => (state && status ? (o: KubeObject) => statusPasses(state.parts(o), status) : undefined), [state, status]);
  const { items, change } = useFilteredRows(named.items, named.change, byStatus);

  const columns = useMemo(() => columnsFor(kind, wide === '1', allNamespaces), [kind, wide, allNamespaces]);

  return (
    <>
      <div className="page-head">
        <h1>{view.label}</h1>
        <span className="sub">
          {list.isPending ? 'loading…' : countText(items.length, list)}
          {kind.scope === 'Namespaced' && (namespace ? ` in ${namespace}` : ' in all namespaces')}
        </span>
        {/* The page's actions on the head's right, the filters below to themselves: a list's own actions (the Nodes list's cordon, uncordon and drain) beside Create. */}
        <div className="head-actions">
          {view.ListActions && <view.ListActions items={items} whole={list.whole} />}
          {canCreate?.allowed === false ? (
            <button className="btn primary" disabled title={canCreate.message}>
              Create
            </button>
          ) : (
            <Link className="btn primary" to={withSearch(`/new/${kind.plural}`)}>
              Create
            </Link>
          )}
        </div>
      </div>
      <div className="toolbar">
        <input
          className="input"
          data-search
          type="search"
          placeholder="Filter by name  ( / )"
          aria-label="Filter by name"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          style={{ width: 240 }}
        />
        {state && <StatusFilter column={state} statuses={statuses} total={named.items.length} value={status} onChange={setStatus} />}
        <div className="grow">
          <input
            className={`input mono${selector.error ? ' invalid' : ''}`}
            style={{ width: '100%' }}
            placeholder="Label selector, e.g. zone in (a,b),!gpu"
            aria-label="Label selector"
            aria-invalid={!!selector.error}
            value={labelDraft}
            onChange={(e) => setLabelDraft(e.target.value)}
            onBlur={() => !selector.error && setLabels(labelDraft)}
            onKeyDown={(e) => e.key === 'Enter' && !selector.error && setLabels(labelDraft)}
          />
          {selector.error && <div className="field-error">{selector.error}</div>}
        </div>
        <label className="check">
          <input type="checkbox" checked={wide === '1'} onChange={(e) => setWide(e.target.checked ? '1' : '')} /> Wide
        </label>
      </div>
      <ErrorAlert error={list.error} />
      <ResourceTable
        items={items}
        change={change}
        columns={columns}
        sort={sort}
        onSort={setSort}
        onOpen={(o) => navigate(withSearch(detailPath(kind, o)))}
        empty={
          list.isPending
            ? 'Loading…'
            : list.partial
              ? 'Nothing matches the filters so far; the rest of the list is still being read…'
              : list.items.length
                ? 'Nothing matches the filters.'
                : `No ${view.label.toLowerCase()}${namespace ? ` in ${namespace}` : ''}.`
        }
      />
    </>
  );
}
