import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../kinds/kind.ts';
import { ReceivedInput, SentInput } from './inputsync.ts';

const pod = (name: string, ip: string, extra: Record<string, unknown> = {}) =>
  ({ metadata: { name, namespace: 'a', uid: `uid-${name}`, labels: { app: name } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] }, status: { podIP: ip, ...extra } }) as unknown as KubeObject;
const node = (name: string, heartbeat: string) => ({ metadata: { name, uid: `uid-${name}` }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], conditions: [{ type: 'Ready', lastHeartbeatTime: heartbeat }] } }) as unknown as KubeObject;
const none = { namespaces: [], policies: [] };

describe("the reachability worker's copy of the cluster", () => {
  it('is sent whole first, then only what changed in what the engine reads', () => {
    const sent = new SentInput();
    const received = new ReceivedInput();
    const a = pod('a', '10.1.0.1');
    const b = pod('b', '10.1.0.2');
    const first = sent.changes({ ...none, pods: [a, b], nodes: [node('n1', 't1')] })!;
    expect(first.reset).toBe(true);
    let input = received.apply(first);
    expect(input.pods.map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(input.pods[0]).toEqual({ metadata: { name: 'a', namespace: 'a', labels: { app: 'a' } }, spec: { nodeName: 'n1', hostNetwork: undefined, containers: [{ ports: undefined }], initContainers: undefined }, status: { podIP: '10.1.0.1', podIPs: undefined } });
    // A heartbeat and a pod's condition change: new objects, nothing the engine reads.
    expect(sent.changes({ ...none, pods: [pod('a', '10.1.0.1', { phase: 'Running' }), b], nodes: [node('n1', 't2')] })).toBeUndefined();
    // A label changed, a pod gone, a pod new: those alone.
    const a2 = { ...a, metadata: { ...a.metadata, labels: { app: 'a', tier: 'web' } } } as KubeObject;
    const next = sent.changes({ ...none, pods: [a2, pod('c', '10.1.0.3')], nodes: [node('n1', 't3')] })!;
    expect(next.reset).toBe(false);
    expect(next.lists.pods.set.map(([uid]) => uid)).toEqual(['uid-a', 'uid-c']);
    expect(next.lists.pods.remove).toEqual(['uid-b']);
    expect(next.lists.nodes).toEqual({ set: [], remove: [] });
    input = received.apply(next);
    expect(input.pods.map((p) => [p.metadata.name, p.metadata.labels])).toEqual([
      ['a', { app: 'a', tier: 'web' }],
      ['c', { app: 'c' }],
    ]);
    expect(input.nodes).toHaveLength(1);
  });

  it('starts over when the worker does', () => {
    const sent = new SentInput();
    const lists = { ...none, pods: [pod('a', '10.1.0.1')], nodes: [] };
    sent.changes(lists);
    expect(sent.changes(lists)).toBeUndefined();
    sent.reset();
    const again = sent.changes(lists)!;
    expect(again.reset).toBe(true);
    expect(new ReceivedInput().apply(again).pods).toHaveLength(1);
  });
});
