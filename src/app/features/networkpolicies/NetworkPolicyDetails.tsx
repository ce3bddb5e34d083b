// A NetworkPolicy as sentences: what it selects and what it lets in and out.
import type { KubeObject } from '../../../kinds/kind.ts';
import { describePolicy, effectivePolicyTypes } from '../../../lib/netpol-describe.ts';
import { Badge } from '../../components/common.tsx';
import { Link } from '../../routes/router.tsx';

/** The reachability page with this policy highlighted. */
export const reachabilityPath = (o: { metadata: { namespace?: string; name?: string } }, view?: 'graph' | 'policies') =>
  `/reachability?${new URLSearchParams({ ...(view ? { view } : {}), policy: `${o.metadata.namespace ?? 'default'}/${o.metadata.name ?? ''}` })}`;

export function NetworkPolicyDetails({ object }: { object: KubeObject }) {
  const np = object as Parameters<typeof describePolicy>[0];
  const s = describePolicy(np);
  return (
    <section className="panel">
      <h2>
        Rules{' '}
        {effectivePolicyTypes(np).map((t) => (
          <Badge key={t} tone="info">
            {t}
          </Badge>
        ))}
        <span style={{ flex: 1 }} />
        <Link className="btn small" to={reachabilityPath(object)} title="Who may reach whom with this policy highlighted">
          Show in reachability matrix
        </Link>
        <Link className="btn small" to={reachabilityPath(object, 'graph')}>
          Graph
        </Link>
      </h2>
      <div className="body">
        <p className="sentence">{s.selects}</p>
        {s.ingress && (
          <>
            <h3 style={{ fontSize: 13, margin: '14px 0 6px' }}>Ingress</h3>
            {s.ingress.map((line, i) => (
              <p className="sentence" key={i}>
                {line}
              </p>
            ))}
          </>
        )}
        {s.egress && (
          <>
            <h3 style={{ fontSize: 13, margin: '14px 0 6px' }}>Egress</h3>
            {s.egress.map((line, i) => (
              <p className="sentence" key={i}>
                {line}
              </p>
            ))}
          </>
        )}
      </div>
    </section>
  );
}
