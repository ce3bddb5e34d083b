import { describe, expect, it } from 'vitest';
import { describePolicy, describePort } from './netpol-describe.ts';

describe('describePolicy', () => {
  it('renders rules as sentences', () => {
    const s = describePolicy({
      metadata: { namespace: 'prod' },
      spec: {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [
          {
            from: [{ podSelector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['fe'] }] }, namespaceSelector: { matchLabels: { team: 'a' } } }],
            ports: [{ protocol: 'TCP', port: 8000, endPort: 8080 }],
          },
        ],
      },
    });
    expect(s.selects).toBe('Selects pods with app=web in namespace prod.');
    expect(s.ingress).toEqual(['Allows ingress on TCP 8000-8080 from pods with role in (fe) in namespaces with team=a.']);
    expect(s.egress).toBeUndefined();
  });

  it('names deny-all, ipBlocks, own-namespace peers and defaults', () => {
    const s = describePolicy({
      metadata: { namespace: 'db' },
      spec: {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }, { podSelector: { matchLabels: { k8s: 'dns' } } }], ports: [{ port: 53, protocol: 'UDP' }] }],
      },
    });
    expect(s.selects).toBe('Selects all pods in namespace db.');
    expect(s.ingress).toEqual(['Denies all ingress to the selected pods.']);
    expect(s.egress).toEqual(['Allows egress on UDP 53 to 10.0.0.0/8 except 10.1.0.0/16 or pods with k8s=dns in namespace db.']);
  });

  it('describes ports', () => {
    expect(describePort({ port: 'http' })).toBe('TCP port "http"');
    expect(describePort({ protocol: 'SCTP' })).toBe('all SCTP ports');
  });
});
