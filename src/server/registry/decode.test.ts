// Decoding keeps meaning: a field the schema does not know is named (a Warning
// with fieldValidation=Warn, a 400 with Strict), and no volume source ever
// comes out as another one.
import { describe, expect, it } from 'vitest';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import { volumeSources } from '../../kinds/pod.ts';
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
