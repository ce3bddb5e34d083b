// Why one cell of the matrix says what it says: for each direction, the
// policies that isolate the pod and the rules (by index) that let the
// connection through, with links to the policies.
import { useEffect, useRef } from 'react';
import { count as countText } from '../../../lib/words.ts';
import type { DirectionExplanation, Explanation, PolicyRef, Protocol, RuleRef } from '../../../lib/reachability/index.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { Link, withSearch } from '../../routes/router.tsx';
import { detailPath } from '../resources/types.ts';
import type { CellExplanation, ClusterSummary, MatrixView as MatrixAnswer } from './compute.ts';
import { useWorkerAnswer } from './client.ts';
import { cellState, groupId, groupTitle, STATE_TEXT, SYMBOL, type Cell } from './MatrixView.tsx';

const policyPath = (p: PolicyRef) => withSearch(detailPath(networkPolicyKind, { metadata: p }));

export function PolicyLink({ policy }: { policy: PolicyRef }) {
  return (
    <Link to={policyPath(policy)} className="mono">
      {policy.namespace}/{policy.name}
    </Link>
  );
}

const ruleText = (r: RuleRef) =>
  `${r.direction} rule ${r.rule + 1}${r.peer !== undefined ? `, peer ${r.peer + 1}` : ', any peer'}${r.port !== undefined ? `, port ${r.port + 1}` : ', any port'}`;

function Direction({ d }: { d: DirectionExplanation }) {
  return (
    <div className={`rx-dir ${d.allowed ? 'allowed' : 'denied'}`}>
      <h3>
        <span className={`rx-cell static ${d.allowed ? 'allowed' : 'denied'}`} aria-hidden="true">
          {d.allowed ? SYMBOL.allowed : SYMBOL.denied}
        </span>
        {d.direction === 'egress' ? 'Egress of the source' : 'Ingress of the destination'}: {d.allowed ? 'allows' : 'denies'}
      </h3>
      <p className="sentence">{d.reason}</p>
      {d.isolatedBy.length > 0 && (
        <div className="rx-kv">
          <span className="muted">Isolated by</span>
          <span>
            {d.isolatedBy.map((p, i) => (
              <span key={`${p.namespace}/${p.name}`}>
                {i > 0 && ', '}
                <PolicyLink policy={p} />
              </span>
            ))}
          </span>
        </div>
      )}
      {d.allowedBy.length > 0 && (
        <div className="rx-kv">
          <span className="muted">Allowed by</span>
          <ul className="rx-rules">
            {d.allowedBy.map((r, i) => (
              <li key={i}>
                <PolicyLink policy={r} /> <span className="muted">{ruleText(r)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {d.fromOwnNode && <p className="muted">The source is the destination's own node, which is always let in.</p>}
    </div>
  );
}

function PairExplanation({ e, heading }: { e: Explanation; heading?: string }) {
  return (
    <div className="rx-pair" data-allowed={e.allowed}>
      {heading && (
        <h3 className="rx-pair-head">
          <span className={`rx-cell static ${e.allowed ? 'allowed' : 'denied'}`} aria-hidden="true">
            {e.allowed ? SYMBOL.allowed : SYMBOL.denied}
          </span>
          {heading}
        </h3>
      )}
      <p className="sentence rx-summary">{e.summary}</p>
      <Direction d={e.egress} />
      <Direction d={e.ingress} />
    </div>
  );
}

const refText = (r: { namespace: string; name: string } | { ip: string }) => ('ip' in r ? r.ip : `${r.namespace}/${r.name}`);

export function ExplainPanel({ summary, matrix, cell, port, protocol, onClose, onFix }: { summary: ClusterSummary; matrix: MatrixAnswer; cell: Cell; port: number; protocol: Protocol; onClose(): void; onFix?(expect: 'allowed' | 'denied'): void }) {
  const src = summary.groups[cell.from];
  const dst = summary.groups[cell.to];
  const answer = useWorkerAnswer<CellExplanation>(
    summary,
    `${src?.key}>${dst?.key}@${protocol}/${port}`,
    src && dst ? { type: 'explainCell', fromKey: src.key, toKey: dst.key, port, protocol } : null,
  );
  // On narrow screens the panel sits below the matrix: bring it into view when a cell is chosen.
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el && el.getBoundingClientRect().top > window.innerHeight - 80) el.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [src?.key, dst?.key]);
  if (!src || !dst) return null;
  const { state, count, total } = cellState(summary, matrix, cell.from, cell.to);
  const list = answer.data?.explanations ?? [];
  const single = src.podCount === 1 && dst.podCount === 1;
  return (
    <aside className="panel rx-side" aria-label="Explanation" data-testid="explanation" ref={ref}>
      <h2>
        <span className={`rx-cell static ${state}`} aria-hidden="true">
          {SYMBOL[state]}
        </span>
        <span className="grow">
          {protocol} {port}: {STATE_TEXT[state]}
        </span>
        <button className="icon-btn small" onClick={onClose} aria-label="Close explanation" title="Close">
          ×
        </button>
      </h2>
      <div className="body">
        <div className="rx-kv">
          <span className="muted">From</span>
          <span className="mono" title={groupTitle(src)}>
            {groupId(src)}
          </span>
          <span className="muted">To</span>
          <span className="mono" title={groupTitle(dst)}>
            {groupId(dst)}
          </span>
        </div>
        {!single && (
          <p className="muted">
            {countText(count)} of {countText(total)} pod pairs allowed
            {state === 'partial' ? ': pods of these groups differ in named ports, addresses or nodes. One denied and one allowed pair explained.' : '; explained for one of them.'}
          </p>
        )}
        {onFix && (
          <div className="row rx-fix-buttons">
            {state !== 'allowed' && (
              <button className="btn small" onClick={() => onFix('allowed')} title="Propose the smallest policy change that allows this">
                Fix: allow
              </button>
            )}
            {state !== 'denied' && (
              <button className="btn small" onClick={() => onFix('denied')} title="Propose the smallest policy change that denies this">
                Fix: deny
              </button>
            )}
          </div>
        )}
        {answer.error && <div className="alert bad">{answer.error}</div>}
        {!answer.data && !answer.error && <p className="muted">computing…</p>}
        {list.map((e) => (
          <PairExplanation key={`${refText(e.from)}>${refText(e.to)}`} e={e} heading={single ? undefined : `${refText(e.from)} → ${refText(e.to)}`} />
        ))}
      </div>
    </aside>
  );
}
