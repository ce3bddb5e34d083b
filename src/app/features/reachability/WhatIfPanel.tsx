// The change a NetworkPolicy edit would make to who may reach whom, before it
// is saved: the live cluster with the stored policy replaced by the draft,
// compared pair by pair on the ports the two versions name (or, when they
// name none, the ports the other policies and the pods name).
import { useEffect, useMemo, useState } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import type { NetworkPolicyLike, Protocol } from '../../../lib/reachability/index.ts';
import { Link, withSearch } from '../../routes/router.tsx';
import type { PortSpec, WhatIfPair, WhatIfResult } from './compute.ts';
import { ReachabilityFeed, readingText, useLiveReachability, useWorkerAnswer } from './client.ts';
import { SYMBOL } from './MatrixView.tsx';
import { useLiveIntents } from './intents.ts';

const DEBOUNCE_MS = 300;
const SHOWN = 25;

const trim = (o: KubeObject | undefined): NetworkPolicyLike | undefined =>
  o && { metadata: { name: o.metadata?.name, namespace: o.metadata?.namespace || 'default' }, spec: (o as { spec?: NetworkPolicyLike['spec'] }).spec };

function Pairs({ pairs, total, kind }: { pairs: WhatIfPair[]; total: number; kind: 'allowed' | 'denied' }) {
  const [all, setAll] = useState(false);
  if (!pairs.length) return null;
  const shown = all ? pairs : pairs.slice(0, SHOWN);
  return (
    <div className={`rx-whatif-list ${kind}`}>
      <h3>
        <span className={`rx-cell static ${kind}`} aria-hidden="true">
          {SYMBOL[kind]}
        </span>
        Newly {kind} <span className="muted">({total} pair{total === 1 ? '' : 's'} over the ports checked)</span>
      </h3>
      <ul>
        {shown.map((p) => (
          <li key={`${p.from.namespace}/${p.from.name}>${p.to.namespace}/${p.to.name}`} data-pair={`${p.from.namespace}/${p.from.name}>${p.to.namespace}/${p.to.name}`}>
            <span className="mono">
              {p.from.namespace}/{p.from.name} → {p.to.namespace}/{p.to.name}
            </span>{' '}
            <span className="muted">{p.ports.join(', ')}</span>
          </li>
        ))}
      </ul>
      {pairs.length > SHOWN && (
        <button className="btn small" onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show ${pairs.length - SHOWN} more${pairs.length < total ? ' (first pairs only)' : ''}`}
        </button>
      )}
    </div>
  );
}

export default function WhatIfPanel({ draft, original }: { draft: KubeObject; original?: KubeObject }) {
  const live = useLiveReachability();
  const [settled, setSettled] = useState(() => trim(draft)!);
  useEffect(() => {
    const t = setTimeout(() => setSettled(trim(draft)!), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [draft]);
  const orig = useMemo(() => trim(original), [original]);
  const key = useMemo(() => JSON.stringify([settled, orig]), [settled, orig]);
  const typing = trim(draft) !== settled && JSON.stringify([trim(draft), orig]) !== key;
  // One more port to check, as the matrix would be read (kept while editing this policy).
  const [extraText, setExtraText] = useState('');
  const [extraProto, setExtraProto] = useState<Protocol>('TCP');
  const extraPort = Number(extraText);
  const extra: PortSpec[] = Number.isInteger(extraPort) && extraPort > 0 && extraPort < 65536 ? [{ port: extraPort, protocol: extraProto }] : [];
  const intents = useLiveIntents();
  const answer = useWorkerAnswer<WhatIfResult>(live.summary, `${key}|${extra.map((p) => `${p.protocol}/${p.port}`).join()}|${intents.key}`, { type: 'whatif', draft: settled, original: orig, extraPorts: extra, intents: intents.intents });
  const r = answer.data;
  const computing = live.busy || answer.computing || typing;
  const ns = settled.metadata.namespace ?? 'default';
  const changed = r && (r.totalAllowed > 0 || r.totalDenied > 0);

  return (
    <section className="panel rx-whatif" aria-label="What-if" data-testid="whatif">
      <ReachabilityFeed />
      <h2>
        Reachability change if applied
        <span className={`rx-status${computing ? ' busy' : ''}`} role="status" aria-live="polite">
          {live.reading !== undefined ? readingText(live.reading) : computing ? 'computing…' : r ? (changed ? `+${r.totalAllowed} allowed, −${r.totalDenied} denied` : 'no change') : ''}
        </span>
        <span className="grow" />
        <Link className="btn small" to={withSearch(`/reachability?policy=${encodeURIComponent(`${ns}/${settled.metadata.name ?? ''}`)}`, [])}>
          Open matrix
        </Link>
      </h2>
      <div className="body">
        {answer.error && <div className="alert bad">{answer.error}</div>}
        {r?.error && <div className="alert warn">The draft cannot be analysed yet: {r.error}</div>}
        {r && (
          <>
            <div className="row rx-whatif-ports">
              <label className="row" style={{ gap: 4 }}>
                <span className="muted">Also check</span>
                <select className="input" aria-label="What-if protocol" value={extraProto} onChange={(e) => setExtraProto(e.target.value as Protocol)}>
                  <option>TCP</option>
                  <option>UDP</option>
                  <option>SCTP</option>
                </select>
                <input className="input mono" style={{ width: 80 }} type="number" min={1} max={65535} placeholder="port" aria-label="What-if port" value={extraText} onChange={(e) => setExtraText(e.target.value)} />
              </label>
              <span className="muted">Ports checked:</span>
              {r.ports.map((p) => (
                <span key={`${p.protocol}/${p.port}`} className="chip" title={`${p.newlyAllowed} newly allowed, ${p.newlyDenied} newly denied`}>
                  {p.protocol} {p.port}
                  {(p.newlyAllowed > 0 || p.newlyDenied > 0) && (
                    <>
                      {' '}
                      <b className="rx-plus">+{p.newlyAllowed}</b> <b className="rx-minus">−{p.newlyDenied}</b>
                    </>
                  )}
                </span>
              ))}
            </div>
            {r.intents.length > 0 && (
              <div className="rx-whatif-intents" data-testid="whatif-intents">
                <h3>Intents</h3>
                <ul>
                  {r.intents.map((i) => (
                    <li key={`${i.source}/${i.name}`} data-intent={i.name} className={i.after === 'violated' ? 'breaks' : 'satisfies'}>
                      <span className={`rx-cell static ${i.after === 'violated' ? 'denied' : 'allowed'}`} aria-hidden="true">
                        {i.after === 'violated' ? SYMBOL.denied : SYMBOL.allowed}
                      </span>
                      This edit {i.after === 'violated' ? 'breaks' : 'satisfies'} intent <b className="mono">{i.name}</b> <span className="muted">({i.source})</span>
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {!changed && !r.error && <p className="muted">This edit changes no pod pair on these ports.</p>}
            <div className="grid2">
              <Pairs pairs={r.newlyAllowed} total={r.totalAllowed} kind="allowed" />
              <Pairs pairs={r.newlyDenied} total={r.totalDenied} kind="denied" />
            </div>
          </>
        )}
      </div>
    </section>
  );
}
