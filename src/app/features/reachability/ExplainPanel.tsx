// Why one cell of the matrix says what it says: for each direction, the
// policies that isolate the pod and the rules (by index) that let the
// connection through, with links to the policies.
import type { DirectionExplanation, Explanation, PolicyRef, Protocol, RuleRef } from '../../../lib/reachability/index.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { Link, withSearch } from '../../routes/router.tsx';
import { detailPath } from '../resources/types.ts';
import type { ClusterSummary, MatrixView as MatrixAnswer } from './compute.ts';
import { useWorkerAnswer } from './client.ts';
import { cellState, groupId, STATE_TEXT, SYMBOL, type Cell } from './MatrixView.tsx';

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

export function ExplainPanel({ summary, matrix, cell, port, protocol, onClose }: { summary: ClusterSummary; matrix: MatrixAnswer; cell: Cell; port: number; protocol: Protocol; onClose(): void }) {
  const src = summary.groups[cell.from];
  const dst = summary.groups[cell.to];
  const from = src?.pods[0];
  const to = dst?.pods[0];
  const answer = useWorkerAnswer<Explanation>(summary, `${from?.namespace}/${from?.name}>${to?.namespace}/${to?.name}@${protocol}/${port}`, from && to ? { type: 'explain', from, to, port, protocol } : null);
  if (!src || !dst || !from || !to) return null;
  const { state, count, total } = cellState(summary, matrix, cell.from, cell.to);
  const e = answer.data;
  return (
    <aside className="panel rx-side" aria-label="Explanation" data-testid="explanation">
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
          <span className="mono">{groupId(src)}</span>
          <span className="muted">To</span>
          <span className="mono">{groupId(dst)}</span>
        </div>
        {(src.pods.length > 1 || dst.pods.length > 1) && (
          <p className="muted">
            {count} of {total} pod pairs allowed. Explained for {from.namespace}/{from.name} → {to.namespace}/{to.name}
            {state === 'partial' ? '; pods of these groups differ in named ports, addresses or nodes.' : '.'}
          </p>
        )}
        {answer.error && <div className="alert bad">{answer.error}</div>}
        {!e && !answer.error && <p className="muted">computing…</p>}
        {e && (
          <>
            <p className="sentence rx-summary">{e.summary}</p>
            <Direction d={e.egress} />
            <Direction d={e.ingress} />
          </>
        )}
      </div>
    </aside>
  );
}
