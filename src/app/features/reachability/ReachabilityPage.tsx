// /reachability: who may open a connection to whom under the live
// NetworkPolicies, as a matrix, a graph and sentences. Port, protocol, tab and
// the highlighted policy live in the URL; the engine runs in a worker and the
// last answer stays on screen while the next is computed.
import { useEffect, useMemo, useState } from 'react';
import { count, plural } from '../../../lib/words.ts';
import type { Protocol } from '../../../lib/reachability/index.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { useList } from '../../api/hooks.ts';
import { useSearchParam } from '../../routes/router.tsx';
import type { ClusterSummary, GraphLevel, GraphView as GraphAnswer, MatrixView as MatrixAnswer, PolicyInfo } from './compute.ts';
import { ReachabilityFeed, readingText, useLiveReachability, useWorkerAnswer } from './client.ts';
import { ExplainPanel } from './ExplainPanel.tsx';
import { GraphView } from './GraphView.tsx';
import { Legend, MatrixView, type Cell } from './MatrixView.tsx';
import { PoliciesView } from './PoliciesView.tsx';
import { IntentsPanel } from './IntentsPanel.tsx';
import { FixPanel } from './FixPanel.tsx';
import { exportGraph, exportGraphEdges, exportMatrix, type ExportFormat } from './exporting.ts';
import { groupId } from './MatrixView.tsx';

function ExportButtons({ onExport, formats }: { onExport(f: ExportFormat): void | Promise<void>; formats: ExportFormat[] }) {
  const label: Record<ExportFormat, string> = { csv: 'CSV', md: 'Markdown', svg: 'SVG', png: 'PNG' };
  const [error, setError] = useState<string>();
  return (
    <div className="row rx-export" role="group" aria-label="Export">
      <span className="muted">Export</span>
      {formats.map((f) => (
        <button
          key={f}
          className="btn small"
          onClick={() => {
            setError(undefined);
            Promise.resolve(onExport(f)).catch((e: unknown) => setError(`${label[f]} export failed: ${e instanceof Error ? e.message : String(e)}`));
          }}
        >
          {label[f]}
        </button>
      ))}
      {error && <span className="alert bad" role="alert">{error}</span>}
    </div>
  );
}

type View = 'matrix' | 'graph' | 'policies' | 'intents';
const VIEWS: { id: View; label: string }[] = [
  { id: 'matrix', label: 'Matrix' },
  { id: 'graph', label: 'Graph' },
  { id: 'policies', label: 'Policies' },
  { id: 'intents', label: 'Intents' },
];
const PROTOCOLS: Protocol[] = ['TCP', 'UDP', 'SCTP'];
const policyKey = (p: { namespace: string; name: string }) => `${p.namespace}/${p.name}`;
/** Past this many pod groups the graph starts folded to namespaces. */
const AUTO_NAMESPACE_LEVEL = 40;

function PolicyPicker({ summary, selected, onSelect }: { summary: ClusterSummary; selected?: string; onSelect(key: string): void }) {
  return (
    <aside className="panel rx-side" aria-label="Policies">
      <h2>Highlight a policy</h2>
      <div className="body rx-picker">
        {summary.policies.length === 0 && <p className="muted">No NetworkPolicies: nothing is isolated.</p>}
        {summary.policies.map((p) => {
          const k = policyKey(p);
          const on = selected === k;
          return (
            <button key={k} className={`rx-pick${on ? ' on' : ''}`} aria-pressed={on} onClick={() => onSelect(on ? '' : k)}>
              <span className="mono">{k}</span>
              <span className="muted">
                {p.types.join('+')} · {p.selectedPods} pod{p.selectedPods === 1 ? '' : 's'}
                {p.warnings.length > 0 && ' · ⚠'}
              </span>
            </button>
          );
        })}
        {selected && (
          <p className="muted rx-hint">
            <span className="rx-swatch sel" aria-hidden="true" /> pods it selects · <span className="rx-swatch adm" aria-hidden="true" /> peers its rules admit
          </p>
        )}
      </div>
    </aside>
  );
}

export function ReachabilityPage() {
  const [viewParam, setView] = useSearchParam('view');
  const [portParam, setPort] = useSearchParam('port');
  const [protoParam, setProto] = useSearchParam('protocol');
  const [policyParam, setPolicy] = useSearchParam('policy');
  const [nsParam] = useSearchParam('ns');
  const view: View = VIEWS.some((v) => v.id === viewParam) ? (viewParam as View) : 'matrix';
  const [cellKeys, setCellKeys] = useState<{ from: string; to: string }>();
  const [fixing, setFixing] = useState<{ fromKey: string; toKey: string; port: number; protocol: Protocol; expect: 'allowed' | 'denied' }>();
  const live = useLiveReachability();
  const policies = useList(networkPolicyKind);
  const summary = live.summary;

  // Without a port in the URL: the first port the policies or pods name (80 when none does).
  const fallback = summary?.suggestedPorts[0] ?? { port: 80, protocol: 'TCP' as Protocol };
  const portValid = Number.isInteger(Number(portParam)) && Number(portParam) > 0 && Number(portParam) < 65536;
  const port = portValid ? Number(portParam) : fallback.port;
  const protocol: Protocol = PROTOCOLS.includes(protoParam as Protocol) ? (protoParam as Protocol) : portValid ? 'TCP' : fallback.protocol;
  const [portDraft, setPortDraft] = useState(String(port));
  useEffect(() => setPortDraft(String(port)), [port]);
  const matrix = useWorkerAnswer<MatrixAnswer>(summary, `${protocol}/${port}`, view === 'matrix' ? { type: 'matrix', port, protocol } : null);
  // The graph shows pod groups, or namespaces once there are too many groups to draw (switchable).
  const [nodesParam, setNodes] = useSearchParam('nodes');
  const level: GraphLevel = nodesParam === 'groups' || nodesParam === 'namespaces' ? nodesParam : (summary?.groups.length ?? 0) > AUTO_NAMESPACE_LEVEL ? 'namespaces' : 'groups';
  const graph = useWorkerAnswer<GraphAnswer>(summary, `graph/${level}`, view === 'graph' ? { type: 'graph', level } : null);

  const policy: PolicyInfo | undefined = summary?.policies.find((p) => policyKey(p) === policyParam);
  const shownSummary = view === 'matrix' ? matrix.summary : view === 'graph' ? graph.summary : summary;
  const cell = useMemo((): Cell | undefined => {
    if (!cellKeys || !matrix.summary) return undefined;
    const from = matrix.summary.groups.findIndex((g) => g.key === cellKeys.from);
    const to = matrix.summary.groups.findIndex((g) => g.key === cellKeys.to);
    return from >= 0 && to >= 0 ? { from, to } : undefined;
  }, [cellKeys, matrix.summary]);
  // The policy as the shown answer knows it (its group indexes match that answer's groups).
  const shownPolicy = shownSummary?.policies.find((p) => policyKey(p) === policyParam);

  const computing = live.busy || (view === 'matrix' && matrix.computing) || (view === 'graph' && graph.computing);
  const commitPort = () => {
    const n = Number(portDraft);
    if (Number.isInteger(n) && n > 0 && n < 65536) {
      setPort(String(n));
      if (!protoParam) setProto(protocol === 'TCP' ? '' : protocol);
    }
    else setPortDraft(String(port));
  };

  return (
    <div className="rx-page">
      <ReachabilityFeed />
      <div className="page-head">
        <h1>Reachability</h1>
        <span
          className="sub"
          title={
            summary
              ? 'Pods in one set are selected and allowed by exactly the same policy rules, so what one of them may reach, or be reached by, holds for all of them.'
              : undefined
          }
        >
          {summary
            ? `${plural(summary.podCount, 'pod')}${live.reading !== undefined ? ' (of those read so far)' : ''} in ${plural(summary.groups.length, 'group')} · ${summary.policies.length} network ${summary.policies.length === 1 ? 'policy, which treats' : 'policies, which treat'} the pods as ${plural(summary.classCount, 'distinct set')}`
            : 'reading the cluster…'}
        </span>
        <span className={`rx-status${computing ? ' busy' : ''}`} role="status" aria-live="polite" data-testid="reach-status">
          {live.reading !== undefined ? readingText(live.reading) : computing ? 'computing…' : view === 'matrix' && matrix.data ? `up to date · ${matrix.data.ms.toFixed(1)} ms` : 'up to date'}
        </span>
      </div>
      {live.error && <div className="alert bad">The reachability worker failed: {live.error}</div>}
      {nsParam && (
        <div className="alert info">
          Showing every namespace: traffic crosses namespaces, so the choice of <code>{nsParam}</code> in the namespace switcher does not narrow this page.
        </div>
      )}
      <div className="tabs" role="tablist" aria-label="Reachability views">
        {VIEWS.map((v) => (
          <button key={v.id} role="tab" aria-selected={view === v.id} onClick={() => setView(v.id === 'matrix' ? '' : v.id)}>
            {v.label}
          </button>
        ))}
      </div>
      {view === 'matrix' && (
        <div className="toolbar rx-toolbar">
          <label className="row">
            <span className="muted">Port</span>
            <input
              className="input mono"
              style={{ width: 90 }}
              type="number"
              min={1}
              max={65535}
              aria-label="Port"
              list="rx-ports"
              value={portDraft}
              onChange={(e) => setPortDraft(e.target.value)}
              onBlur={commitPort}
              onKeyDown={(e) => e.key === 'Enter' && commitPort()}
            />
          </label>
          <label className="row">
            <span className="muted">Protocol</span>
            <select className="input" aria-label="Protocol" value={protocol} onChange={(e) => {
                if (!portParam) setPort(String(port));
                setProto(e.target.value);
              }}>
              {PROTOCOLS.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </label>
          {summary && summary.suggestedPorts.length > 0 && (
            <div className="row rx-quick" aria-label="Ports the policies and pods name">
              {summary.suggestedPorts.map((p) => {
                const on = p.port === port && p.protocol === protocol;
                return (
                  <button
                    key={`${p.protocol}/${p.port}`}
                    className={`btn small${on ? ' primary' : ''}`}
                    aria-pressed={on}
                    onClick={() => {
                      setPort(String(p.port));
                      setProto(p.protocol);
                    }}
                  >
                    {p.protocol} {p.port}
                  </button>
                );
              })}
            </div>
          )}
          <span className="grow" />
          {summary && matrix.summary && matrix.data && <ExportButtons formats={['csv', 'md', 'svg', 'png']} onExport={(f) => exportMatrix(matrix.summary!, matrix.data!, f)} />}
          <datalist id="rx-ports">
            {summary?.suggestedPorts.map((p) => (
              <option key={`${p.protocol}/${p.port}`} value={p.port} />
            ))}
          </datalist>
        </div>
      )}
      {!summary && <div className="empty">{live.loading ? 'Loading pods, namespaces, policies and nodes…' : 'computing…'}</div>}
      {summary && view === 'matrix' && (
        <div className={`rx-layout${computing ? ' stale' : ''}`}>
          <div className="rx-main">
            <Legend />
            {matrix.summary && matrix.data ? (
              <MatrixView
                summary={matrix.summary}
                matrix={matrix.data}
                policy={shownPolicy}
                selected={cell}
                onSelect={(c) => setCellKeys({ from: matrix.summary!.groups[c.from].key, to: matrix.summary!.groups[c.to].key })}
              />
            ) : (
              <div className="empty">computing…</div>
            )}
            {fixing && (
              <FixPanel
                summary={summary}
                request={{ type: 'fixCell', ...fixing }}
                title={`Fix: make this cell ${fixing.expect} on ${fixing.protocol} ${fixing.port}`}
                onClose={() => setFixing(undefined)}
              />
            )}
            {matrix.data && (
              <p className="muted rx-foot">
                {count(matrix.data.allowedPairs)} of {count(matrix.data.totalPairs)} pod pairs may connect on {matrix.data.protocol} {matrix.data.port}. Rows are sources, columns destinations; pods of one namespace with the same labels share a row and a column.
              </p>
            )}
          </div>
          {cell && matrix.summary && matrix.data ? (
            <ExplainPanel
              summary={matrix.summary}
              matrix={matrix.data}
              cell={cell}
              port={matrix.data.port}
              protocol={matrix.data.protocol}
              onClose={() => setCellKeys(undefined)}
              onFix={(expect) => setFixing({ fromKey: matrix.summary!.groups[cell.from].key, toKey: matrix.summary!.groups[cell.to].key, port: matrix.data!.port, protocol: matrix.data!.protocol, expect })}
            />
          ) : (
            <PolicyPicker summary={summary} selected={policy ? policyParam : undefined} onSelect={setPolicy} />
          )}
        </div>
      )}
      {summary && view === 'graph' && (
        <div className={`rx-layout${computing ? ' stale' : ''}`}>
          <div className="rx-main">
            {graph.summary && graph.data && (
              <ExportButtons
                formats={['csv', 'md', 'svg', 'png']}
                onExport={(f) => {
                  const gs = graph.summary!;
                  const names = graph.data!.level === 'groups' ? gs.groups.map(groupId) : [...new Set(gs.groups.map((g) => g.namespace))];
                  const all = [...names, ...gs.cidrs.slice(0, graph.data!.cidrCount).map((c) => (c.except.length ? `${c.cidr} except ${c.except.join(',')}` : c.cidr))];
                  if (f === 'csv' || f === 'md') exportGraphEdges(graph.data!.edges.map((e) => ({ from: all[e.from], to: all[e.to], ports: e.ports.join(' ') })), f);
                  else {
                    const svg = document.querySelector<SVGSVGElement>('svg.rx-graph');
                    if (svg) return exportGraph(svg, f);
                  }
                }}
              />
            )}
            {graph.summary && graph.data ? <GraphView summary={graph.summary} graph={graph.data} policy={shownPolicy} level={level} onLevel={(l) => setNodes(l)} /> : <div className="empty">computing…</div>}</div>
          <PolicyPicker summary={summary} selected={policy ? policyParam : undefined} onSelect={setPolicy} />
        </div>
      )}
      {view === 'intents' && <IntentsPanel summary={summary} reading={live.reading} />}
      {summary && view === 'policies' && <PoliciesView summary={summary} objects={policies.items} selected={policyParam} onSelect={setPolicy} />}
    </div>
  );
}

export default ReachabilityPage;
