import { describe, expect, it } from 'vitest';
import { daemonPodNodeName, daemonPodTolerations, nodeShouldRunDaemonPod, toleratesTaint } from './daemonnodes.ts';

const node = (name: string, labels: Record<string, string> = {}, taints: { key: string; value?: string; effect: string }[] = []) => ({ metadata: { name, labels }, spec: { taints } });
const ds = (spec: object = {}) => ({ spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], ...spec } } } });

describe('which nodes run a daemon pod', () => {
  it('matches tolerations against taints as v1.Toleration does', () => {
    expect(toleratesTaint({ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' })).toBe(true);
    expect(toleratesTaint({ key: 'k', value: 'w' }, { key: 'k', value: 'v', effect: 'NoSchedule' })).toBe(false);
    expect(toleratesTaint({ operator: 'Exists' }, { key: 'any', effect: 'NoExecute' })).toBe(true);
    expect(toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, { key: 'k', effect: 'NoSchedule' })).toBe(false);
  });

  it('adds the lifecycle tolerations once, and network-unavailable only for host-network pods', () => {
    const keys = daemonPodTolerations({}).map((t) => t.key);
    expect(keys).toContain('node.kubernetes.io/unschedulable');
    expect(keys).not.toContain('node.kubernetes.io/network-unavailable');
    expect(daemonPodTolerations({ hostNetwork: true }).map((t) => t.key)).toContain('node.kubernetes.io/network-unavailable');
    const twice = daemonPodTolerations({ tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }] });
    expect(twice.filter((t) => t.key === 'node.kubernetes.io/not-ready')).toHaveLength(1);
  });

  it('runs on a cordoned or not-ready node, not on one with a foreign NoSchedule taint', () => {
    expect(nodeShouldRunDaemonPod(node('a', {}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]), ds()).shouldRun).toBe(true);
    expect(nodeShouldRunDaemonPod(node('a', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }]), ds()).shouldRun).toBe(true);
    const gpu = nodeShouldRunDaemonPod(node('a', {}, [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]), ds());
    expect(gpu).toEqual({ shouldRun: false, shouldContinueRunning: true, reason: 'taint dedicated=gpu:NoSchedule is not tolerated' });
    const evict = nodeShouldRunDaemonPod(node('a', {}, [{ key: 'dedicated', effect: 'NoExecute' }]), ds());
    expect(evict.shouldContinueRunning).toBe(false);
    expect(nodeShouldRunDaemonPod(node('a', {}, [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]), ds({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] })).shouldRun).toBe(true);
  });

  it('honours nodeSelector and required node affinity, saying which rule failed', () => {
    expect(nodeShouldRunDaemonPod(node('a', { 'kubernetes.io/os': 'windows' }), ds({ nodeSelector: { 'kubernetes.io/os': 'linux' } })).reason).toBe(
      'node selector kubernetes.io/os=linux does not match (node has kubernetes.io/os=windows)',
    );
    const affinity = (operator: string, values?: string[]) => ({
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator, values }] }] } } },
    });
    expect(nodeShouldRunDaemonPod(node('a', { zone: 'east' }), ds(affinity('In', ['east']))).shouldRun).toBe(true);
    expect(nodeShouldRunDaemonPod(node('a', { zone: 'east' }), ds(affinity('NotIn', ['east']))).reason).toBe('required node affinity does not match');
    expect(nodeShouldRunDaemonPod(node('a'), ds(affinity('DoesNotExist'))).shouldRun).toBe(true);
    const byName = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }] } } } };
    expect(nodeShouldRunDaemonPod(node('a'), ds(byName)).shouldRun).toBe(false);
    expect(nodeShouldRunDaemonPod(node('b'), ds(byName)).shouldRun).toBe(true);
  });

  it("find a daemon pod's node: spec.nodeName once bound, else the one name its affinity allows", () => {
    const byName = (values: string[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values }] }] } } } });
    expect(daemonPodNodeName({ spec: { nodeName: 'a', ...byName(['b']) } })).toBe('a');
    expect(daemonPodNodeName({ spec: byName(['b']) })).toBe('b');
    expect(daemonPodNodeName({ spec: byName(['b', 'c']) })).toBeUndefined();
    expect(daemonPodNodeName({ spec: {} })).toBeUndefined();
    expect(daemonPodNodeName({})).toBeUndefined();
  });
});
