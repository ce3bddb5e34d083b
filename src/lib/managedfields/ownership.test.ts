// Field ownership as the app reads it from managedFields, and the apply
// configuration it sends: the changed fields and its own, nothing else.
import { describe, expect, it } from 'vitest';
import { decodeManaged, updateManaged, applyManaged, type Managed } from './managers.ts';
import { FieldSet, pathString } from './fieldset.ts';
import { extractItems, type ApplySchema } from './typed.ts';
import { appliedBy, applyPlan, fieldPathOf, ownersBelow, ownersOf } from './ownership.ts';

const schema: ApplySchema = {
  metadata: { fields: { finalizers: { strategy: 'merge' } } },
  spec: {
    fields: {
      selector: { mapType: 'atomic' },
      tolerations: { strategy: 'replace' },
      containers: {
        strategy: 'merge',
        key: 'name',
        fields: { ports: { strategy: 'merge', key: 'containerPort', listMapKeys: ['containerPort', 'protocol'] } },
      },
    },
  },
};
const ctx = (now: string) => ({ schema, ignored: new FieldSet(), now });

const live = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'ds', namespace: 'default', resourceVersion: '7', labels: { app: 'ds', team: 'a' } },
  spec: {
    selector: { matchLabels: { app: 'ds' } },
    tolerations: [{ operator: 'Exists' }],
    containers: [
      { name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] },
      { name: 'sidecar', image: 'side:1' },
    ],
  },
  status: { numberReady: 1 },
};

/** kubectl created it all; a controller then set the sidecar's image. */
function history(): Managed {
  let m = updateManaged(undefined, live, new Map(), { manager: 'kubectl-client-side-apply', apiVersion: 'apps/v1' }, ctx('2026-01-01T00:00:00Z'));
  const next = structuredClone(live);
  next.spec.containers[1].image = 'side:2';
  m = updateManaged(live, next, m, { manager: 'controller', apiVersion: 'apps/v1' }, ctx('2026-01-02T00:00:00Z'));
  return m;
}

const path = (segments: (string | number)[]) => {
  const p = fieldPathOf(live, segments, schema);
  return p && pathString(p);
};

describe('fieldPathOf', () => {
  it('names list items by their keys or value, and stops at an atomic list or map', () => {
    expect(path(['spec', 'containers', 1, 'image'])).toBe('.spec.containers[name="sidecar"].image');
    expect(path(['spec', 'containers', '0', 'ports', 0, 'containerPort'])).toBe('.spec.containers[name="app"].ports[containerPort=80,protocol="TCP"].containerPort');
    expect(path(['spec', 'tolerations', 0, 'operator'])).toBe('.spec.tolerations');
    expect(path(['spec', 'selector', 'matchLabels', 'app'])).toBe('.spec.selector');
    expect(path(['metadata', 'labels', 'team'])).toBe('.metadata.labels.team');
  });

  it('is undefined for what the object does not have', () => {
    expect(path(['spec', 'containers', 5, 'image'])).toBeUndefined();
    expect(path(['spec', 'hostNetwork'])).toBeUndefined();
    expect(path(['spec', 'containers', 0, 'image', 'x'])).toBeUndefined();
  });
});

describe('ownersOf', () => {
  const m = history();
  const owners = (segments: (string | number)[]) => ownersOf(m, fieldPathOf(live, segments, schema)!).map((o) => `${o.manager}/${o.operation}@${o.time}`);

  it('a field changed by a later writer is theirs alone, with its operation and time', () => {
    expect(owners(['spec', 'containers', 1, 'image'])).toEqual(['controller/Update@2026-01-02T00:00:00Z']);
    expect(owners(['spec', 'containers', 0, 'image'])).toEqual(['kubectl-client-side-apply/Update@2026-01-01T00:00:00Z']);
  });

  it('inside a value owned whole (atomic list or map), its owner', () => {
    expect(owners(['spec', 'selector', 'matchLabels', 'app'])).toEqual(['kubectl-client-side-apply/Update@2026-01-01T00:00:00Z']);
    expect(owners(['spec', 'tolerations', 0, 'operator'])).toEqual(['kubectl-client-side-apply/Update@2026-01-01T00:00:00Z']);
  });

  it('owning a list item or map itself is not owning the fields in it; below, each manager is counted', () => {
    const stored = structuredClone(live);
    stored.spec.containers[1].image = 'side:2';
    const after = applyManaged(stored, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { containers: [{ name: 'sidecar', image: 'side:2' }] } }, history(), { manager: 'kube-workbench', apiVersion: 'apps/v1' }, false, ctx('2026-01-03T00:00:00Z')).managed;
    const item = fieldPathOf(live, ['spec', 'containers', 1], schema)!;
    expect(ownersOf(after, item).map((o) => o.manager).sort()).toEqual(['kube-workbench', 'kubectl-client-side-apply']);
    expect(ownersOf(after, [...item, 'f:image']).map((o) => o.manager).sort()).toEqual(['controller', 'kube-workbench']);
    expect(ownersBelow(after, fieldPathOf(live, ['spec', 'containers'], schema)!).map((b) => `${b.owner.manager}:${b.fields}`)).toEqual([
      'kubectl-client-side-apply:8',
      'kube-workbench:3',
      'controller:1',
    ]);
    expect(appliedBy(after, 'kube-workbench').toFieldsV1()).toEqual({ 'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } });
  });

  it('nobody owns a field of an untracked object', () => {
    expect(ownersOf(new Map(), ['f:spec'])).toEqual([]);
  });
});

describe('applyPlan', () => {
  const edit = (f: (o: typeof live) => void) => {
    const d = structuredClone(live);
    f(d);
    return d;
  };

  it('a new object is applied whole, without what an apply never carries', () => {
    const { config } = applyPlan(undefined, live, new Map(), 'kube-workbench', schema);
    expect(config).toEqual({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', namespace: 'default', labels: live.metadata.labels }, spec: live.spec });
  });

  it('an edit sends identity and the changed fields, list items with their keys, and nothing the user left alone', () => {
    const draft = edit((d) => {
      d.spec.containers[0].image = 'app:2';
      d.metadata.labels.team = 'b';
    });
    const { config, kept } = applyPlan(live, draft, history(), 'kube-workbench', schema);
    expect(config).toEqual({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'ds', namespace: 'default', labels: { team: 'b' } },
      spec: { containers: [{ name: 'app', image: 'app:2' }] },
    });
    expect(kept).toEqual([]);
  });

  it('keeps sending what this manager applied before (leaving it out would remove it); a field it owns and the user removed is left out', () => {
    const before = applyManaged(live, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', labels: { team: 'a', extra: 'x' } } }, history(), { manager: 'kube-workbench', apiVersion: 'apps/v1' }, true, ctx('2026-01-03T00:00:00Z'));
    const base = { ...before.object, metadata: { ...(before.object.metadata as object) } } as typeof live;
    const draft = structuredClone(base) as typeof live & { metadata: { labels: Record<string, string> } };
    delete draft.metadata.labels.extra;
    draft.spec.containers[1].image = 'side:3';
    const { config, kept } = applyPlan(base, draft, before.managed, 'kube-workbench', schema);
    expect(config.metadata).toEqual({ name: 'ds', namespace: 'default', labels: { team: 'a' } });
    expect(config.spec).toEqual({ containers: [{ name: 'sidecar', image: 'side:3' }] });
    expect(kept).toEqual([]);
  });

  it('a change inside an atomic list sends the whole list; removing a field others own is reported as kept', () => {
    const draft = edit((d) => {
      d.spec.tolerations = [{ operator: 'Exists' }, { operator: 'Equal' }];
      delete (d.metadata.labels as Record<string, string>).team;
      d.spec.containers.splice(1, 1);
    });
    const { config, kept } = applyPlan(live, draft, history(), 'kube-workbench', schema);
    expect(config.spec).toEqual({ tolerations: draft.spec.tolerations });
    expect(kept.map(pathString)).toEqual(['.metadata.labels.team', '.spec.containers[name="sidecar"]']);
  });
});

describe('extractItems', () => {
  it('takes members whole, recurses where paths are listed below, and keeps list keys', () => {
    const set = FieldSet.of(['f:spec', 'f:containers', 'k:{"name":"app"}', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}', 'f:name'], ['f:metadata', 'f:labels']);
    const value = { ...live, spec: { ...live.spec, containers: [{ ...live.spec.containers[0], ports: [{ containerPort: 80, name: 'http' }] }, live.spec.containers[1]] } };
    expect(extractItems(value, set, schema)).toEqual({
      metadata: { labels: live.metadata.labels },
      spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }] }] },
    });
  });
});

it('decodes what the server writes', () => {
  const m = decodeManaged([{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }]);
  expect(ownersOf(m, ['f:data', 'f:a'])).toEqual([{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' }]);
});
