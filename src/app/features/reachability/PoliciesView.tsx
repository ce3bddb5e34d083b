// Every policy as sentences, with what it selects in the live cluster and the
// mistakes worth a second look: selecting no pod, peers that match nothing.
import { useEffect, useRef } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { describePolicy } from '../../../lib/netpol-describe.ts';
import { Badge } from '../../components/common.tsx';
import type { ClusterSummary, PolicyInfo } from './compute.ts';
import { PolicyLink } from './ExplainPanel.tsx';
import { groupNames } from './MatrixView.tsx';

const keyOf = (p: { namespace: string; name: string }) => `${p.namespace}/${p.name}`;

function Groups({ summary, ids, all, what }: { summary: ClusterSummary; ids: number[]; all?: boolean; what: string }) {
  if (all) return <span>any {what}</span>;
  if (!ids.length) return <span className="muted">none</span>;
  const shown = ids.slice(0, 8);
  return (
    <span className="chips">
      {shown.map((g) => (
        <span key={g} className="chip" title={groupNames(summary.groups[g])}>
          {summary.groups[g].namespace}/{summary.groups[g].name}
        </span>
      ))}
      {ids.length > shown.length && <span className="muted">and {ids.length - shown.length} more groups</span>}
    </span>
  );
}

export function PoliciesView({ summary, objects, selected, onSelect }: { summary: ClusterSummary; objects: KubeObject[]; selected?: string; onSelect(key: string): void }) {
  const byKey = new Map(objects.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]));
  // The policy named in the URL (from its detail page) scrolled into view once.
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || !selected) return;
    const el = document.querySelector(`[data-policy="${CSS.escape(selected)}"]`);
    if (el) {
      el.scrollIntoView({ block: 'nearest' });
      scrolled.current = true;
    }
  });
  const withWarnings = summary.policies.filter((p) => p.warnings.length).length;
  if (!summary.policies.length) {
    return <div className="empty">No NetworkPolicies: every pod may reach every other pod on every port.</div>;
  }
  return (
    <div className="rx-policies">
      {withWarnings > 0 && (
        <div className="alert warn" role="status">
          {withWarnings} of {summary.policies.length} {summary.policies.length === 1 ? 'policy has' : 'policies have'} warnings; {withWarnings === 1 ? 'it is' : 'they are'} listed first.
        </div>
      )}
      {[...summary.policies.filter((p) => p.warnings.length), ...summary.policies.filter((p) => !p.warnings.length)].map((p: PolicyInfo) => {
        const o = byKey.get(keyOf(p));
        const s = o ? describePolicy(o as Parameters<typeof describePolicy>[0]) : undefined;
        const isSel = selected === keyOf(p);
        return (
          <section key={keyOf(p)} className={`panel rx-policy${isSel ? ' selected' : ''}`} aria-label={`Policy ${keyOf(p)}`} data-policy={keyOf(p)}>
            <h2>
              <PolicyLink policy={p} />
              {p.types.map((t) => (
                <Badge key={t} tone="info">
                  {t}
                </Badge>
              ))}
              {p.warnings.length > 0 && <Badge tone="warn">⚠ {p.warnings.length} warning{p.warnings.length > 1 ? 's' : ''}</Badge>}
              <span className="grow" />
              <button className={`btn small${isSel ? ' primary' : ''}`} onClick={() => onSelect(isSel ? '' : keyOf(p))} aria-pressed={isSel}>
                {isSel ? 'Highlighted' : 'Highlight in matrix and graph'}
              </button>
            </h2>
            <div className="body">
              {p.warnings.map((w, i) => (
                <div key={i} className="rx-warning">
                  <span aria-hidden="true">⚠</span> {w}
                </div>
              ))}
              {s && (
                <>
                  <p className="sentence">{s.selects}</p>
                  {s.ingress?.map((line, i) => (
                    <p className="sentence rx-rule-line" key={`i${i}`}>
                      <span className="muted">ingress {s.ingress!.length > 1 ? i + 1 : ''}</span> {line}
                    </p>
                  ))}
                  {s.egress?.map((line, i) => (
                    <p className="sentence rx-rule-line" key={`e${i}`}>
                      <span className="muted">egress {s.egress!.length > 1 ? i + 1 : ''}</span> {line}
                    </p>
                  ))}
                </>
              )}
              <div className="rx-kv">
                <span className="muted">Selects now</span>
                <span>
                  {p.selectedPods} pod{p.selectedPods === 1 ? '' : 's'} {p.selects.length > 0 && <Groups summary={summary} ids={p.selects} what="pod" />}
                </span>
                {p.types.includes('Ingress') && (
                  <>
                    <span className="muted">Admits from</span>
                    <span>
                      <Groups summary={summary} ids={p.admitsFrom} all={p.admitsFromAll} what="source" />
                      {p.cidrsFrom.length > 0 && <span className="mono"> · {p.cidrsFrom.join(', ')}</span>}
                    </span>
                  </>
                )}
                {p.types.includes('Egress') && (
                  <>
                    <span className="muted">Admits to</span>
                    <span>
                      <Groups summary={summary} ids={p.admitsTo} all={p.admitsToAll} what="destination" />
                      {p.cidrsTo.length > 0 && <span className="mono"> · {p.cidrsTo.join(', ')}</span>}
                    </span>
                  </>
                )}
              </div>
            </div>
          </section>
        );
      })}
    </div>
  );
}
