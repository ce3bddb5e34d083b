// A proposed fix: each policy change as a diff, its full reachability effect
// (every pod pair it changes, at every port region), the caveats, and a
// button opening the normal editor with the change as its draft.
import type { KubeObject } from '../../../kinds/kind.ts';
import { apiVersionOf } from '../../../kinds/kind.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import type { EffectPair, NetworkPolicyLike, PolicyChange } from '../../../lib/reachability/index.ts';
import { toYaml } from '../../../lib/yaml.ts';
import { LazyDiffEditor } from '../../editors/monaco/index.ts';
import { navigate } from '../../routes/router.tsx';
import { editorPath, proposeDraft } from '../edit/proposed.ts';
import type { ClusterSummary, FixView } from './compute.ts';
import { useWorkerAnswer } from './client.ts';
import type { RequestBody } from './protocol.ts';
import { SYMBOL } from './MatrixView.tsx';

const SHOWN = 12;

const manifest = (np: NetworkPolicyLike | undefined): string =>
  np ? toYaml({ apiVersion: apiVersionOf(networkPolicyKind), kind: networkPolicyKind.kind, metadata: { name: np.metadata.name, namespace: np.metadata.namespace }, spec: np.spec }) : '';

function openInEditor(c: PolicyChange) {
  const obj = { apiVersion: apiVersionOf(networkPolicyKind), kind: networkPolicyKind.kind, metadata: { name: c.policy.metadata.name, namespace: c.policy.metadata.namespace ?? 'default' }, spec: c.policy.spec } as KubeObject;
  const exists = c.action === 'update';
  proposeDraft(networkPolicyKind.plural, obj, exists);
  navigate(editorPath(networkPolicyKind.plural, obj, exists));
}

function Pairs({ pairs, total, kind }: { pairs: EffectPair[]; total: number; kind: 'allowed' | 'denied' }) {
  if (!pairs.length) return null;
  return (
    <div className={`rx-whatif-list ${kind}`}>
      <h3>
        <span className={`rx-cell static ${kind}`} aria-hidden="true">
          {SYMBOL[kind]}
        </span>
        Newly {kind} <span className="muted">({pairs.length} pod pair{pairs.length === 1 ? '' : 's'})</span>
      </h3>
      <ul>
        {pairs.slice(0, SHOWN).map((p) => (
          <li key={`${p.from.namespace}/${p.from.name}>${p.to.namespace}/${p.to.name}`} data-pair={`${p.from.namespace}/${p.from.name}>${p.to.namespace}/${p.to.name}`}>
            <span className="mono">
              {p.from.namespace}/{p.from.name} → {p.to.namespace}/{p.to.name}
            </span>{' '}
            <span className="muted">{p.ports.join(', ')}</span>
          </li>
        ))}
      </ul>
      {pairs.length > SHOWN && <p className="muted">and {pairs.length - SHOWN} more{total > pairs.length ? ' (first pairs only)' : ''}</p>}
    </div>
  );
}

export function FixPanel({ summary, request, title, onClose }: { summary?: ClusterSummary; request: RequestBody; title: string; onClose(): void }) {
  const answer = useWorkerAnswer<FixView>(summary, JSON.stringify(request), request);
  const fix = answer.data;
  const p = fix?.proposal;
  return (
    <section className="panel rx-fix" aria-label="Proposed fix" data-testid="fix">
      <h2>
        <span className="grow">{title}</span>
        <button className="icon-btn small" onClick={onClose} aria-label="Close fix" title="Close">
          ×
        </button>
      </h2>
      <div className="body">
        {answer.error && <div className="alert bad">{answer.error}</div>}
        {!fix && !answer.error && <p className="muted">searching for the smallest change…</p>}
        {fix?.already && <p className="muted">Nothing to change: {fix.subject || 'this'} already has that verdict.</p>}
        {p && !fix.already && (
          <>
            <p className="sentence">
              For <span className="mono">{fix.subject}</span>:{' '}
              {p.achieved ? (
                <>
                  {p.changes.length} change{p.changes.length === 1 ? '' : 's'}, checked against the matrices before and after on every port:{' '}
                  <b className="rx-plus">+{p.effect.totalAllowed}</b> allowed, <b className="rx-minus">−{p.effect.totalDenied}</b> denied (pair × port range).
                </>
              ) : (
                <b>no change found that achieves it.</b>
              )}
            </p>
            {p.notes.map((n) => (
              <div key={n} className="alert warn">
                {n}
              </div>
            ))}
            {p.changes.map((c) => (
              <div key={`${c.policy.metadata.namespace}/${c.policy.metadata.name}`} className="rx-fix-change" data-testid="fix-change">
                <h3 className="row">
                  <span className="chip">{c.action === 'create' ? 'new policy' : 'changed policy'}</span>
                  <span className="mono grow">
                    {c.policy.metadata.namespace}/{c.policy.metadata.name}
                  </span>
                  <button className="btn primary small" onClick={() => openInEditor(c)}>
                    Open in editor
                  </button>
                </h3>
                {c.reasons.length > 0 && <p className="muted">{[...new Set(c.reasons)].join('; ')}.</p>}
                <LazyDiffEditor original={manifest(c.before)} modified={manifest(c.policy)} originalLabel={c.before ? 'Stored' : 'Nothing'} modifiedLabel="Proposed" height={260} />
              </div>
            ))}
            <div className="grid2">
              <Pairs pairs={p.effect.newlyAllowed} total={p.effect.totalAllowed} kind="allowed" />
              <Pairs pairs={p.effect.newlyDenied} total={p.effect.totalDenied} kind="denied" />
            </div>
          </>
        )}
      </div>
    </section>
  );
}
