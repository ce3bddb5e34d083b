// A NetworkPolicy as sentences: what it selects and what it lets in and out.
import type { KubeObject } from '../../../kinds/kind.ts';
import { describePolicy, effectivePolicyTypes } from '../../../lib/netpol-describe.ts';
import { Badge } from '../../components/common.tsx';

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
