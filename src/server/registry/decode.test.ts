// Decoding keeps meaning: a field the schema does not know is named (a Warning
// with fieldValidation=Warn, a 400 with Strict), and no volume source ever
// comes out as another one. An in-process write decoded against the object
// it changed gives what decoding it whole gives.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import { podKind, volumeSources } from '../../kinds/pod.ts';
import { nodeKind } from '../../kinds/node.ts';
import { eventKind } from '../../kinds/events.ts';
import { volumeAttachmentKind } from '../../kinds/volumeattachment.ts';
import { freezeAsJSON } from '../../lib/json.ts';
import { decodeObject, type FieldValidation } from './decode.ts';

const ds = (volumes: unknown[], container: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:1', ...container }], volumes } },
  },
});

const decode = (raw: unknown, fieldValidation: FieldValidation = 'Warn') => {
  const warnings: string[] = [];
  const obj: any = decodeObject(daemonSetKind, raw, { fieldValidation, warnings });
  return { obj, warnings, volumes: obj.spec.template.spec.volumes as any[] };
};

describe('decoding a pod template', () => {
  it('keeps a csi volume a csi volume (it was stored as emptyDir: {})', () => {
    const csi = { driver: 'secrets-store.csi.k8s.io', readOnly: true, volumeAttributes: { secretProviderClass: 'app' } };
    for (const mode of ['Warn', 'Strict'] as const) {
      const { volumes, warnings } = decode(ds([{ name: 'secrets', csi }]), mode);
      expect(volumes).toEqual([{ name: 'secrets', csi }]);
      expect(warnings).toEqual([]);
    }
  });

  it.each(volumeSources())('keeps a %s volume as sent, whatever defaults it gets', (source) => {
    const { volumes, warnings } = decode(ds([{ name: 'v', [source]: {} }]));
    expect(Object.keys(volumes[0]).sort()).toEqual(['name', source].sort());
    expect(warnings).toEqual([]);
  });

  it('names an unknown field: a Warning with Warn, a 400 with Strict', () => {
    const raw = ds([{ name: 'v', emptyDir: {} }], { lifecycle: { preStop: { sleep: { seconds: 5 } } }, sidecarMode: 'on' });
    const { obj, warnings } = decode(raw);
    expect(warnings).toEqual(['unknown field "spec.template.spec.containers[0].sidecarMode"']);
    expect(obj.spec.template.spec.containers[0].lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
    expect(() => decode(raw, 'Strict')).toThrow(/strict decoding error: unknown field "spec.template.spec.containers\[0\].sidecarMode"/);
  });
});

describe('decoding an object the caller gives away (an in-process update)', () => {
  it('decodes it as a copy would: nulls dropped, a __proto__ map key kept, defaults applied', () => {
    const body = (): any => {
      const o: any = ds([{ name: 'v', emptyDir: null }], { args: ['a'] });
      o.metadata.labels = JSON.parse('{"__proto__":"x","app":"agent"}');
      o.metadata.annotations = { gone: null } as any;
      o.spec.minReadySeconds = null;
      return o;
    };
    const copied = decodeObject(daemonSetKind, body(), { fieldValidation: 'Ignore', warnings: [] });
    const given = body();
    const owned = decodeObject(daemonSetKind, given, { fieldValidation: 'Ignore', warnings: [], owned: true });
    expect(JSON.stringify(owned)).toBe(JSON.stringify(copied));
    expect(Object.hasOwn(owned.metadata.labels!, '__proto__')).toBe(true);
    expect((owned.spec as any).minReadySeconds).toBe(undefined);
    expect('minReadySeconds' in given.spec).toBe(false); // dropped in place, not copied
  });
});

describe('decoding an in-process status write (statusOf: the stored object)', () => {
  const stored = (kind: any, raw: unknown) => freezeAsJSON(JSON.parse(JSON.stringify(decodeObject(kind, raw, { fieldValidation: 'Ignore', warnings: [] }))));
  const pod = () => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { app: 'a' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true }] },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] },
    status: { phase: 'Pending' },
  });
  const node = () => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1' },
    spec: { podCIDR: '10.0.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] },
    status: { capacity: { cpu: '2', memory: '1Gi' }, conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const daemonSet = () => ({ ...ds([{ name: 'v', emptyDir: {} }]), status: { desiredNumberScheduled: 1, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 } });
  const cases: [string, any, () => any, (o: any) => void][] = [
    ['Pod', podKind, pod, (o) => Object.assign(o.status, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: '10.0.0.5' })],
    ['Node', nodeKind, node, (o) => (o.status.conditions[0].lastHeartbeatTime = '2026-01-01T00:00:00Z')],
    ['DaemonSet', daemonSetKind, daemonSet, (o) => Object.assign(o.status, { numberReady: 1, observedGeneration: 1 })],
    ['VolumeAttachment', volumeAttachmentKind, () => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'csi', nodeName: 'n1', source: { persistentVolumeName: 'pv' } } }), (o) => (o.status = { attached: true, attachmentMetadata: { a: 'b' } })],
  ];

  it.each(cases)('%s: the same object as a whole decode with the stored spec put back, the spec itself shared', (_, kind, make, change) => {
    const old = stored(kind, make());
    const body = () => {
      const o = JSON.parse(JSON.stringify(old));
      change(o);
      o.metadata.labels = { ...o.metadata.labels, extra: 'x' };
      o.spec.bogus = 'left out by either'; // the request's spec is discarded by the status strategy
      return o;
    };
    const whole: any = decodeObject(kind, body(), { fieldValidation: 'Ignore', warnings: [], owned: true });
    whole.spec = old.spec;
    const kept: any = decodeObject(kind, body(), { fieldValidation: 'Ignore', warnings: [], owned: true, statusOf: old });
    expect(JSON.stringify(kept)).toBe(JSON.stringify(whole));
    expect(kept.spec).toBe(old.spec);
  });

  it('reports a wrong type in status at the same path as a whole decode, and does not look at the discarded spec', () => {
    const old = stored(podKind, pod());
    const body = (): any => ({ ...JSON.parse(JSON.stringify(old)), status: { phase: 'Running', conditions: 'no' } });
    const error = (statusOf?: any) => {
      try {
        decodeObject(podKind, body(), { fieldValidation: 'Ignore', warnings: [], owned: true, statusOf });
      } catch (e: any) {
        return e.message;
      }
    };
    expect(error(old)).toMatch(/cannot unmarshal string into Go struct field Pod\.status\.conditions of type array/);
    expect(error(old)).toBe(error());
    const badSpec = { ...JSON.parse(JSON.stringify(old)), spec: { containers: 'no' } };
    expect((decodeObject(podKind, badSpec, { fieldValidation: 'Ignore', warnings: [], owned: true, statusOf: old }) as any).spec).toBe(old.spec);
  });
});

describe('decoding an in-process write against the object it changed', () => {
  // A pod as the simulated cluster stores it, and the DaemonSet corpus: each decoded, as the cache holds it.
  const dir = new URL('../../kinds/testdata/daemonsets/', import.meta.url);
  const decoded = (kind: typeof podKind, raw: unknown) => decodeObject(kind, raw, { fieldValidation: 'Ignore', warnings: [] });
  const samples: [typeof podKind, any][] = [
    [podKind, decoded(podKind, JSON.parse(readFileSync(new URL('../../kinds/testdata/pod.json', import.meta.url), 'utf8')))],
    ...readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => [daemonSetKind, decoded(daemonSetKind, parse(readFileSync(new URL(f, dir), 'utf8')))] as [typeof podKind, any]),
  ];
  let seed = 7;
  const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const pick = <T,>(xs: T[]) => xs[Math.floor(random() * xs.length)];

  /** Every place in a value: [parent, key]. */
  function places(v: any, out: [any, string | number][] = []): [any, string | number][] {
    if (v && typeof v === 'object') for (const k of Object.keys(v)) {
      out.push([v, Array.isArray(v) ? Number(k) : k]);
      places(v[k], out);
    }
    return out;
  }
  /** A random change, as a controller's mutate (or a bug in one) makes it. */
  function change(o: any) {
    const [parent, key] = pick(places(o).filter(([p]) => p !== o));
    const v = parent[key];
    switch (Math.floor(random() * 9)) {
      case 0: parent[key] = typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : typeof v === 'string' ? `${v}-x` : v; break;
      case 1: if (Array.isArray(parent)) parent.splice(key as number, 1); else delete parent[key]; break;
      case 2: if (Array.isArray(parent)) parent.push(structuredClone(v)); else parent[`${key}Extra`] = structuredClone(v); break;
      case 3: parent[key] = null; break;
      case 4: parent[key] = typeof v === 'string' ? 42 : 'text'; break;
      case 5: if (v && typeof v === 'object' && !Array.isArray(v)) v.unknownField = 'x'; break;
      case 6: o.status = { ...(o.status ?? {}), phase: 'Running', startTime: '2026-12-04T10:00:00Z' }; break;
      case 7: o.metadata.labels = { ...(o.metadata.labels ?? {}), added: 'yes' }; break;
      default: parent[key] = undefined;
    }
  }
  const outcome = (f: () => unknown) => {
    try {
      return { value: JSON.parse(JSON.stringify(f())) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  /** The copy a write's mutate gets: the object without its managed fields. */
  const copyOf = (o: any) => {
    const c = structuredClone(o);
    delete c.metadata.managedFields;
    return c;
  };

  it('gives what decoding the whole copy gives, or the same error, for random changes', () => {
    let fast = 0;
    for (let n = 0; n < 1500; n++) {
      const [kind, live] = pick(samples);
      const edited = copyOf(live);
      for (let e = 1 + Math.floor(random() * 3); e > 0; e--) change(edited);
      const status = random() < 0.3 ? live : undefined;
      const whole = outcome(() => decodeObject(kind, structuredClone(edited), { fieldValidation: 'Ignore', warnings: [], owned: true, statusOf: status }));
      const part = outcome(() => decodeObject(kind, structuredClone(edited), { fieldValidation: 'Ignore', warnings: [], owned: true, statusOf: status, before: live }));
      expect(part).toEqual(whole);
      if ('value' in whole) fast++;
    }
    expect(fast).toBeGreaterThan(500);
  });

  it('keeps what did not change as it is and parses only what did', () => {
    const live = samples[0][1];
    const edited = copyOf(live);
    edited.status.conditions[1].status = 'False';
    const spec = edited.spec;
    const got: any = decodeObject(podKind, edited, { fieldValidation: 'Ignore', warnings: [], owned: true, before: live });
    expect(got.spec).toBe(spec);
    expect(got.status.conditions[1].status).toBe('False');
    // A value of the wrong type is refused as decoding the whole object refuses it.
    const wrong = copyOf(live);
    wrong.status.conditions[1].status = 7;
    expect(() => decodeObject(podKind, wrong, { fieldValidation: 'Ignore', warnings: [], owned: true, before: live })).toThrow(/cannot unmarshal number into Go struct field Pod.status.conditions\[1\].status of type string/);
    // A part of another cached object (frozen under tests) that mutate put into the copy is not written into.
    const shared = copyOf(live);
    shared.status.conditions = freezeAsJSON(live.status.conditions.map((c: any, i: number) => (i === 1 ? { ...c, status: 'False' } : c)));
    const decodedShared: any = decodeObject(podKind, shared, { fieldValidation: 'Ignore', warnings: [], owned: true, before: live });
    expect(decodedShared.status.conditions[1].status).toBe('False');
    expect(decodedShared).toEqual(decodeObject(podKind, copyOf(shared), { fieldValidation: 'Ignore', warnings: [] }));
    // A field the schema cannot do without (an Event's involvedObject), dropped: refused as the whole Event is.
    const event = decodeObject(eventKind, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', count: 1 }, { fieldValidation: 'Ignore', warnings: [] });
    const counted = structuredClone(event) as any;
    counted.count = 2;
    expect((decodeObject(eventKind, counted, { fieldValidation: 'Ignore', warnings: [], owned: true, before: event }) as any).count).toBe(2);
    const orphan = structuredClone(event) as any;
    delete orphan.involvedObject;
    let refusal = '';
    try {
      decodeObject(eventKind, structuredClone(orphan), { fieldValidation: 'Ignore', warnings: [] });
    } catch (e) {
      refusal = (e as Error).message;
    }
    expect(refusal).toMatch(/involvedObject/);
    expect(() => decodeObject(eventKind, orphan, { fieldValidation: 'Ignore', warnings: [], owned: true, before: event })).toThrow(refusal);
  });
});
