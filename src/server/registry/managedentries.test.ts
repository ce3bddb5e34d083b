// The managed fields of an update computed on the stored entries (updateManagedEntries,
// which keeps the entries a write takes nothing from) against the decoding path
// (decodeManaged, updateManaged, encodeManaged): the same bytes, write after write, for
// the four kinds and Pod, with status writes, spec writes, removals and applies by
// several managers; and the entries only the decoding path can tell are left to it.
import { describe, expect, it } from 'vitest';
import type { KindDefinition } from '../../kinds/kind.ts';
import { apiVersionOf } from '../../kinds/kind.ts';
import { nodeKind } from '../../kinds/node.ts';
import { networkPolicyKind } from '../../kinds/networkpolicy.ts';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import { volumeAttachmentKind } from '../../kinds/volumeattachment.ts';
import { podKind } from '../../kinds/pod.ts';
import { patchMetaFor } from '../../kinds/patchmeta.ts';
import {
  applyManaged,
  decodeManaged,
  encodeManaged,
  FieldSet,
  TypedError,
  updateManaged,
  updateManagedEntries,
  type FieldManagerContext,
  type ManagedFieldsEntry,
  type Writer,
} from '../../lib/managedfields/managers.ts';
import { recordUpdateNow } from './apply.ts';

type JSONMap = Record<string, any>;

/** What a write through `subresource` owns nothing of (the strategies' reset fields), as apply.ts derives it. */
function contextOf(kind: KindDefinition, subresource: string | undefined, now: string): FieldManagerContext {
  const paths = (fields: string[], prefix: string[] = []) => fields.map((f) => [...prefix, ...f.split('.')].map((p) => `f:${p}`));
  const ignored =
    subresource === 'status'
      ? FieldSet.of(...paths(kind.strategy.statusResetsFields), ...paths(kind.strategy.statusResetsMetadata, ['metadata']))
      : FieldSet.of(...paths(kind.strategy.mainResetsFields));
  return { schema: patchMetaFor(kind), ignored, now };
}

const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: `uid-${name}`,
  resourceVersion: '7',
  creationTimestamp: '2026-01-01T00:00:00Z',
  labels: { app: 'web', tier: 'front' },
  annotations: { note: 'one' },
});

const samples: [KindDefinition, JSONMap][] = [
  [
    nodeKind,
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: meta('n1'),
      spec: { podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24'], taints: [{ key: 'a', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
        conditions: [
          { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'n1' }],
        images: [{ names: ['busybox:1.36'], sizeBytes: 100 }],
        nodeInfo: { kubeletVersion: 'v1.31.0', architecture: 'amd64' },
      },
    },
  ],
  [
    networkPolicyKind,
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta('np', 'default'),
      spec: {
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ protocol: 'TCP', port: 80 }] }],
        egress: [{ to: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }],
      },
    },
  ],
  [
    daemonSetKind,
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { ...meta('ds', 'default'), generation: 3 },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1.36', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }] }], tolerations: [{ operator: 'Exists' }] },
        },
      },
      status: { currentNumberScheduled: 5, numberMisscheduled: 0, desiredNumberScheduled: 5, numberReady: 4, observedGeneration: 3, updatedNumberScheduled: 2, numberAvailable: 4, numberUnavailable: 1 },
    },
  ],
  [
    volumeAttachmentKind,
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: meta('va'),
      spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } },
      status: { attached: true, attachmentMetadata: { dev: '/dev/sdb' } },
    },
  ],
  [
    podKind,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...meta('ds-abc', 'default'), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'uid-ds', controller: true, blockOwnerDeletion: true }] },
      spec: {
        nodeName: 'n1',
        containers: [{ name: 'c', image: 'busybox:1.36', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '1' } } }],
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } },
      },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        hostIP: '10.0.0.1',
        containerStatuses: [{ name: 'c', image: 'busybox:1.36', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
      },
    },
  ],
];

/** A small random generator, seeded, so that a failure can be run again. */
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

/** Paths to the object's values below `top` (map keys and array indexes). */
function valuePaths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return [at, ...v.flatMap((x, i) => valuePaths(x, [...at, i]))];
  if (v && typeof v === 'object') return [at, ...Object.entries(v).flatMap(([k, x]) => valuePaths(x, [...at, k]))];
  return [at];
}

/** One random change below `top`: a value replaced, a key added, or a key or item removed. */
function mutate(o: JSONMap, top: string, r: () => number, step: number) {
  if (!o[top]) o[top] = {};
  const paths = valuePaths(o[top], [top]);
  const path = paths[Math.floor(r() * paths.length)];
  const parentPath = path.slice(0, -1);
  let parent: any = o;
  for (const p of parentPath) parent = parent[p];
  const key = path[path.length - 1];
  const value = parentPath.length ? parent[key] : undefined;
  const dice = r();
  if (parentPath.length && dice < 0.2) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (value && typeof value === 'object' && !Array.isArray(value) && dice < 0.5) {
    value[`added${step}`] = `v${step}`;
  } else if (parentPath.length && (typeof value !== 'object' || value === null)) {
    parent[key] = typeof value === 'number' ? value + 1 : typeof value === 'boolean' ? !value : `${value}-${step}`;
  } else {
    o[top][`extra${step % 3}`] = { n: step };
  }
}

const slow = (live: JSONMap, next: JSONMap, entries: unknown, writer: Writer, ctx: FieldManagerContext) =>
  encodeManaged(updateManaged(live, next, decodeManaged(entries as ManagedFieldsEntry[]), writer, ctx));

const writers = (kind: KindDefinition): [Writer, string | undefined, string][] => [
  [{ manager: 'kubelet', apiVersion: apiVersionOf(kind), subresource: 'status' }, 'status', 'status'],
  [{ manager: 'kube-controller-manager', apiVersion: apiVersionOf(kind), subresource: 'status' }, 'status', 'status'],
  [{ manager: 'kubectl-edit', apiVersion: apiVersionOf(kind) }, undefined, 'spec'],
  [{ manager: 'kube-controller-manager', apiVersion: apiVersionOf(kind) }, undefined, 'metadata'],
  [{ manager: 'kubectl-label', apiVersion: apiVersionOf(kind) }, undefined, 'metadata'],
];

describe('managed fields on the stored entries', () => {
  for (const [kind, sample] of samples) {
    it(`gives the decoding path's bytes for ${kind.kind}, write after write`, () => {
      const r = rng(kind.kind.length * 7919);
      const schema = patchMetaFor(kind);
      const creator: Writer = { manager: 'creator', apiVersion: apiVersionOf(kind) };
      const strip = (o: JSONMap) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
      let live: JSONMap = structuredClone(sample);
      live.metadata.managedFields = encodeManaged(updateManaged(undefined, strip(live), new Map(), creator, contextOf(kind, undefined, '2026-01-01T00:00:00Z')));
      let kept = 0;
      let fast = 0;
      for (let step = 0; step < 300; step++) {
        const now = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(step / 3))).toISOString().replace('.000Z', 'Z');
        if (step % 37 === 36) {
          // An apply now and then, so that stored entries hold appliers as well.
          const config = { apiVersion: sample.apiVersion, kind: sample.kind, metadata: { name: live.metadata.name, labels: { applied: String(step) } } };
          const res = applyManaged(strip(live), config, decodeManaged(live.metadata.managedFields), { manager: 'applier', apiVersion: apiVersionOf(kind) }, true, { schema, ignored: new FieldSet(), now });
          live = { ...res.object, metadata: { ...(res.object.metadata as JSONMap), managedFields: encodeManaged(res.managed) } };
          continue;
        }
        const [writer, subresource, top] = writers(kind)[Math.floor(r() * 5)];
        if (top === 'status' && !('status' in sample)) continue;
        const next: JSONMap = structuredClone(live);
        const changes = 1 + Math.floor(r() * 3);
        for (let i = 0; i < changes; i++) mutate(next, top, r, step);
        // The endpoint's resets: status keeps the stored spec, the main resource the stored status.
        if (subresource === 'status') next.spec = live.spec;
        else if ('status' in live) next.status = live.status;
        const ctx = contextOf(kind, subresource, now);
        let want: ManagedFieldsEntry[];
        try {
          want = slow(strip(live), strip(next), live.metadata.managedFields, writer, ctx);
        } catch (e) {
          // A keyed item without its key: both refuse it (the write then keeps the stored entries).
          expect(e).toBeInstanceOf(TypedError);
          expect(() => updateManagedEntries(strip(live), strip(next), live.metadata.managedFields, writer, ctx)).toThrow(TypedError);
          continue;
        }
        const got = updateManagedEntries(strip(live), strip(next), live.metadata.managedFields, writer, ctx);
        expect(got).toBeDefined();
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        fast++;
        for (const e of got!) if (live.metadata.managedFields.includes(e)) kept++;
        live = { ...next, metadata: { ...next.metadata, managedFields: got } };
      }
      // The point of it: most writes keep most entries as they were.
      expect(fast).toBeGreaterThan(150);
      expect(kept).toBeGreaterThan(fast);
    });
  }

  const pod = samples[4][1];
  const podCtx = contextOf(podKind, 'status', '2026-01-02T00:00:00Z');
  const kubelet: Writer = { manager: 'kubelet', apiVersion: 'v1', subresource: 'status' };
  const entry = (manager: string, fieldsV1: unknown, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
    manager,
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...extra,
  });
  const owner = entry('creator', { 'f:spec': { 'f:nodeName': {} } });
  const running = { ...pod, status: { ...pod.status, phase: 'Running' } };

  it('keeps an entry the write takes nothing from as the same object, and renews the writer', () => {
    const status = entry('kubelet', { 'f:status': { 'f:phase': {} } }, { subresource: 'status' });
    const got = updateManagedEntries(pod, running, [owner, status], kubelet, podCtx)!;
    expect(got[0]).toBe(owner);
    expect(got[1]).toEqual({ ...status, time: '2026-01-02T00:00:00Z' });
  });

  const notAsEncoded: [string, ManagedFieldsEntry[]][] = [
    ['keys in another order', [{ operation: 'Update', manager: 'creator', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:nodeName': {} } } }]],
    ['a member written as {".": {}}', [entry('creator', { 'f:spec': { 'f:nodeName': { '.': {} } } })]],
    ['"." after a path element', [entry('creator', { 'f:spec': { 'f:nodeName': {}, '.': {} } })]],
    ['path elements out of order', [entry('creator', { 'f:spec': { 'f:nodeName': {}, 'f:containers': {} } })]],
    ['a time that does not parse', [entry('creator', { 'f:spec': { 'f:nodeName': {} } }, { time: 'yesterday' })]],
    ['empty fields', [entry('creator', {})]],
    ['a stripped field', [entry('creator', { 'f:metadata': { 'f:name': {} } })]],
    ['a manager twice', [owner, entry('creator', { 'f:spec': { 'f:containers': {} } })]],
    ['ten updaters', Array.from({ length: 10 }, (_, i) => entry(`m${i}`, { 'f:spec': { 'f:nodeName': {} } }))],
    ['an invalid operation', [entry('creator', { 'f:spec': { 'f:nodeName': {} } }, { operation: 'Patch' })]],
  ];
  for (const [what, entries] of notAsEncoded) {
    it(`leaves entries with ${what} to the decoding path`, () => {
      expect(updateManagedEntries(pod, running, entries, kubelet, podCtx)).toBeUndefined();
    });
  }

  it('records a status write on entries a client sent in another form as the decoding path does', () => {
    const entries = notAsEncoded[1][1];
    const live = { ...pod, metadata: { ...pod.metadata, managedFields: entries } };
    const next = structuredClone(running) as JSONMap;
    recordUpdateNow(podKind, live as never, next as never, 'kubelet', 'status');
    const want = slow(pod, running, entries, kubelet, { ...podCtx, now: next.metadata.managedFields[1].time });
    expect(next.metadata.managedFields).toEqual(want);
    expect(next.metadata.managedFields[0].fieldsV1).toEqual({ 'f:spec': { 'f:nodeName': {} } });
  });
});
