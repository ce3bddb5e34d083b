import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../kinds/kind.ts';
import { ReceivedInput, SentInput, type InputChanges } from './inputsync.ts';
import { idleTime } from '../../api/idletime.ts';

const pod = (name: string, ip: string, extra: Record<string, unknown> = {}) =>
  ({ metadata: { name, namespace: 'a', uid: `uid-${name}`, labels: { app: name } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] }, status: { podIP: ip, ...extra } }) as unknown as KubeObject;
const node = (name: string, heartbeat: string) => ({ metadata: { name, uid: `uid-${name}` }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], conditions: [{ type: 'Ready', lastHeartbeatTime: heartbeat }] } }) as unknown as KubeObject;
const none = { namespaces: [], policies: [] };
type Lists = Parameters<SentInput['changes']>[0];

/** Every part of the changes, in steps without idle callbacks (as in jsdom). */
async function parts(sent: SentInput, lists: Lists): Promise<InputChanges[]> {
  const out: InputChanges[] = [];
  for await (const part of sent.changes(lists, idleTime(null))) out.push(part);
  return out;
}

/** The changes when they fit in one part. */
async function changes(sent: SentInput, lists: Lists): Promise<InputChanges | undefined> {
  const all = await parts(sent, lists);
  expect(all.length).toBeLessThanOrEqual(1);
  return all[0];
}

describe("the reachability worker's copy of the cluster", () => {
  it('is sent whole first, then only what changed in what the engine reads', async () => {
    const sent = new SentInput();
    const received = new ReceivedInput();
    const a = pod('a', '10.1.0.1');
    const b = pod('b', '10.1.0.2');
    const first = (await changes(sent, { ...none, pods: [a, b], nodes: [node('n1', 't1')] }))!;
    expect(first.reset).toBe(true);
    received.apply(first);
    let input = received.input();
    expect(input.pods.map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(input.pods[0]).toEqual({ metadata: { name: 'a', namespace: 'a', labels: { app: 'a' } }, spec: { nodeName: 'n1', containers: [{}] }, status: { podIP: '10.1.0.1' } });
    // A heartbeat and a pod's condition change: new objects, nothing the engine reads.
    expect(await changes(sent, { ...none, pods: [pod('a', '10.1.0.1', { phase: 'Running' }), b], nodes: [node('n1', 't2')] })).toBeUndefined();
    // A label changed, a pod gone, a pod new: those alone.
    const a2 = { ...a, metadata: { ...a.metadata, labels: { app: 'a', tier: 'web' } } } as KubeObject;
    const next = (await changes(sent, { ...none, pods: [a2, pod('c', '10.1.0.3')], nodes: [node('n1', 't3')] }))!;
    expect(next.reset).toBe(false);
    expect(next.lists.pods.set.uids).toEqual(['uid-a', 'uid-c']);
    expect(next.lists.pods.remove).toEqual(['uid-b']);
    expect(next.lists.nodes).toEqual({ set: { uids: [], json: '[]' }, remove: [] });
    received.apply(next);
    input = received.input();
    expect(input.pods.map((p) => [p.metadata.name, p.metadata.labels])).toEqual([
      ['a', { app: 'a', tier: 'web' }],
      ['c', { app: 'c' }],
    ]);
    expect(input.nodes).toHaveLength(1);
  });

  it('goes in parts of at most 2000 objects, the first starting over, which together make the whole', async () => {
    const sent = new SentInput();
    const received = new ReceivedInput();
    const pods = Array.from({ length: 4500 }, (_, i) => pod(`p${i}`, `10.2.${i >> 8}.${i & 255}`));
    const all = await parts(sent, { ...none, pods, nodes: [node('n1', 't1')] });
    expect(all.map((p) => p.lists.pods.set.uids.length)).toEqual([2000, 2000, 500]);
    expect(all.map((p) => p.reset)).toEqual([true, false, false]);
    for (const p of all) received.apply(p);
    expect(received.input().pods.map((p) => p.metadata.name)).toEqual(pods.map((p) => p.metadata.name));
    expect(received.input().nodes).toHaveLength(1);
    // Then 10 pods gone and one new: one part.
    const after = [...pods.slice(10), pod('late', '10.3.0.1')];
    const next = await parts(sent, { ...none, pods: after, nodes: [node('n1', 't1')] });
    expect(next).toHaveLength(1);
    received.apply(next[0]);
    expect(received.input().pods.map((p) => p.metadata.name)).toEqual(after.map((p) => p.metadata.name));
  });

  it("looks at the objects the lists' changes name alone, and at every object when a change does not follow from the last", async () => {
    const sent = new SentInput();
    const [a, b, x] = [pod('a', '10.1.0.1'), pod('b', '10.1.0.2'), pod('x', '10.1.0.9')];
    const nodes = [node('n1', 't1')];
    const first = [a, b, x];
    await changes(sent, { ...none, pods: first, nodes });
    // x changed without a change saying so: a full look would send it, a look at the change does not.
    const a2 = pod('a', '10.1.0.5');
    const c = pod('c', '10.1.0.3');
    const second = [a2, pod('x', '10.1.0.10'), c];
    sent.observe('pods', second, { from: first, removed: [a, b], added: [a2, c] });
    const next = (await changes(sent, { ...none, pods: second, nodes }))!;
    expect([next.lists.pods.set.uids, next.lists.pods.remove]).toEqual([['uid-a', 'uid-c'], ['uid-b']]);
    // Two changes in a row add up: c replaced, then gone.
    const c2 = pod('c', '10.1.0.4');
    const third = [a2, second[1], c2];
    sent.observe('pods', third, { from: second, removed: [c], added: [c2] });
    const fourth = [a2, second[1]];
    sent.observe('pods', fourth, { from: third, removed: [c2], added: [] });
    const gone = (await changes(sent, { ...none, pods: fourth, nodes }))!;
    expect([gone.lists.pods.set.uids, gone.lists.pods.remove]).toEqual([[], ['uid-c']]);
    // A state not seen between: every object is looked at, so x is sent now.
    const fifth = [a2, second[1], pod('d', '10.1.0.6')];
    sent.observe('pods', fifth, { from: third, removed: [], added: [fifth[2]] });
    const all = (await changes(sent, { ...none, pods: fifth, nodes }))!;
    expect(all.lists.pods.set.uids).toEqual(['uid-x', 'uid-d']);
    expect(await changes(sent, { ...none, pods: fifth, nodes })).toBeUndefined();
  });

  it('starts over when the worker does', async () => {
    const sent = new SentInput();
    const lists = { ...none, pods: [pod('a', '10.1.0.1')], nodes: [] };
    await changes(sent, lists);
    expect(await changes(sent, lists)).toBeUndefined();
    sent.reset();
    const again = (await changes(sent, lists))!;
    expect(again.reset).toBe(true);
    const received = new ReceivedInput();
    received.apply(again);
    expect(received.input().pods).toHaveLength(1);
  });
});
