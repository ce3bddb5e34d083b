import { describe, expect, it } from 'vitest';
import { renderFieldError } from '../lib/field.ts';
import { daemonSetKind as k, TemplateGenerationAnnotation } from './daemonset.ts';

const lines = (errs: any[]) => errs.map(renderFieldError);
const now = new Date('2026-01-10T00:00:00Z');

function ds(over: (o: any) => void = () => {}): any {
  const o: any = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'fluentd', namespace: 'kube-system', creationTimestamp: '2026-01-09T00:00:00Z', labels: { app: 'fluentd' } },
    spec: {
      selector: { matchLabels: { app: 'fluentd' } },
      template: {
        metadata: { labels: { app: 'fluentd' } },
        spec: {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'fluentd',
              image: 'fluent/fluentd:v1.16',
              ports: [{ name: 'metrics', containerPort: 24231 }],
              resources: { limits: { memory: '200Mi' }, requests: { cpu: '100m', memory: '200Mi' } },
              volumeMounts: [{ name: 'varlog', mountPath: '/var/log' }],
              readinessProbe: { httpGet: { path: '/metrics', port: 'metrics' } },
            },
          ],
          volumes: [{ name: 'varlog', hostPath: { path: '/var/log' } }],
        },
      },
    },
  };
  k.defaults(o);
  over(o);
  return o;
}

const create = (o: any) => lines(k.validate(o, {}));

describe('DaemonSet defaults', () => {
  it('fills the update strategy, history limit and pod template defaults', () => {
    const o = ds();
    expect(o.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    expect(o.spec.revisionHistoryLimit).toBe(10);
    const t = o.spec.template.spec;
    expect(t).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    });
    expect(t.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(t.containers[0].ports[0].protocol).toBe('TCP');
    expect(t.containers[0].readinessProbe).toMatchObject({ timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(t.containers[0].readinessProbe.httpGet.scheme).toBe('HTTP');
    expect(t.volumes[0].hostPath.type).toBe('');
  });
  it('keeps OnDelete without rollingUpdate and is idempotent', () => {
    const o: any = { metadata: {}, spec: { updateStrategy: { type: 'OnDelete' }, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    k.defaults(o);
    expect(o.spec.updateStrategy).toEqual({ type: 'OnDelete' });
    const once = structuredClone(o);
    k.defaults(o);
    expect(o).toEqual(once);
    expect(o.spec.template.spec.containers[0].imagePullPolicy).toBe('Always');
    expect(o.spec.template.metadata).toEqual({});
  });
  it('leaves hostPort unset in a hostNetwork template (1.28+: only pods get it) and accepts it', () => {
    const h: any = {
      metadata: { name: 'h', namespace: 'default' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'x:1', ports: [{ containerPort: 80 }] }] } } },
    };
    k.defaults(h);
    expect(h.spec.template.spec.containers[0].ports[0].hostPort).toBeUndefined();
    expect(k.validate(h, {})).toEqual([]);
  });
});

describe('DaemonSet validation', () => {
  it('accepts a realistic DaemonSet', () => {
    expect(create(ds())).toEqual([]);
  });
  it('rejects an empty selector', () => {
    expect(create(ds((o) => (o.spec.selector = {})))).toEqual(['spec.selector: Invalid value: {}: empty selector is invalid for daemonset']);
  });
  it('reports a missing or mismatching selector against the template labels', () => {
    const msg = 'spec.template.metadata.labels: Invalid value: {"app":"fluentd"}: `selector` does not match template `labels`';
    expect(create(ds((o) => delete o.spec.selector))).toEqual([msg]);
    expect(create(ds((o) => (o.spec.selector = { matchLabels: { app: 'other' } })))).toEqual([msg]);
  });
  it('validates template labels without `metadata` in the path', () => {
    expect(create(ds((o) => (o.spec.template.metadata.labels = { app: 'fluentd', 'bad key!': 'x' })))[0]).toMatch(/^spec\.template\.labels: Invalid value: "bad key!"/);
  });
  it('requires containers and images, unique names, known volumes', () => {
    expect(create(ds((o) => (o.spec.template.spec.containers = [])))).toEqual(['spec.template.spec.containers: Required value']);
    expect(create(ds((o) => delete o.spec.template.spec.containers[0].image))).toEqual(['spec.template.spec.containers[0].image: Required value']);
    expect(create(ds((o) => o.spec.template.spec.containers.push({ ...o.spec.template.spec.containers[0] })))).toEqual([
      'spec.template.spec.containers[1].name: Duplicate value: "fluentd"',
    ]);
    expect(create(ds((o) => (o.spec.template.spec.containers[0].volumeMounts[0].name = 'v')))).toEqual([
      'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "v"',
    ]);
  });
  it('allows only restartPolicy Always', () => {
    expect(create(ds((o) => (o.spec.template.spec.restartPolicy = 'OnFailure')))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
  });
  it('forbids activeDeadlineSeconds', () => {
    expect(create(ds((o) => (o.spec.template.spec.activeDeadlineSeconds = 10)))).toEqual([
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
    ]);
  });
  it('requires non-negative minReadySeconds and revisionHistoryLimit', () => {
    expect(create(ds((o) => (o.spec.minReadySeconds = -1)))).toEqual(['spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0']);
    expect(create(ds((o) => (o.spec.revisionHistoryLimit = -1)))).toEqual(['spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0']);
  });
  it('checks the update strategy type', () => {
    expect(create(ds((o) => (o.spec.updateStrategy = { type: 'X' })))).toEqual([
      'spec.updateStrategy: Unsupported value: {"Type":"X","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"',
    ]);
    expect(create(ds((o) => delete o.spec.updateStrategy.rollingUpdate))).toEqual(['spec.updateStrategy.rollingUpdate: Required value']);
  });
  it('enforces exactly one non-zero of maxSurge/maxUnavailable', () => {
    const ru = (v: any) => ds((o) => (o.spec.updateStrategy.rollingUpdate = v));
    expect(create(ru({ maxUnavailable: 1, maxSurge: 1 }))).toEqual([
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero',
    ]);
    expect(create(ru({ maxUnavailable: 0, maxSurge: '0%' }))).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]);
    expect(create(ru({ maxUnavailable: 0, maxSurge: '25%' }))).toEqual([]);
  });
  it('validates int-or-percent values', () => {
    const ru = (v: any) => ds((o) => (o.spec.updateStrategy.rollingUpdate = v));
    expect(create(ru({ maxUnavailable: 0, maxSurge: '150%' }))).toEqual(['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "150%": must not be greater than 100%']);
    expect(create(ru({ maxUnavailable: -1, maxSurge: 0 }))).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
    ]);
    expect(create(ru({ maxUnavailable: 'x', maxSurge: 1 }))[0]).toBe(
      "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"x\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    );
  });
  it('keeps the selector immutable on update', () => {
    const old = ds();
    const next = ds((o) => {
      o.spec.selector = { matchLabels: { app: 'fluentd', tier: 'x' } };
      o.spec.template.metadata.labels.tier = 'x';
    });
    expect(lines(k.validate(next, { old }))).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"fluentd","tier":"x"}}: field is immutable']);
    expect(k.validate(ds(), { old })).toEqual([]);
  });
  it('validates status writes: counters and collisionCount', () => {
    const old = ds((o) => (o.status = { collisionCount: 2, currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }));
    const next = ds((o) => (o.status = { collisionCount: 1, currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: -1 }));
    expect(lines(k.validate(next, { old, subresource: 'status' }))).toEqual([
      'status.numberReady: Invalid value: -1: must be greater than or equal to 0',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
    // Spec problems are not looked at on /status.
    const bad = ds((o) => (o.spec.minReadySeconds = -5));
    expect(k.validate(bad, { old: bad, subresource: 'status' })).toEqual([]);
  });
});

describe('DaemonSet strategy', () => {
  it('resets status and sets template generation 1 on create', () => {
    const o = ds((x) => (x.status = { numberReady: 5 }));
    k.strategy.prepareForCreate!(o);
    expect(o.status).toEqual({ currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 });
    expect(o.metadata.annotations[TemplateGenerationAnnotation]).toBe('1');
    expect(k.strategy).toMatchObject({ statusOnCreate: 'reset', generation: true, allowUnconditionalUpdate: true, mainResetsFields: ['status'], statusResetsFields: ['spec'] });
  });
  it('bumps the template generation only when the template changes', () => {
    const old = ds((o) => (o.metadata.annotations = { [TemplateGenerationAnnotation]: '3' }));
    const same = ds((o) => (o.spec.minReadySeconds = 5));
    k.strategy.prepareForUpdate!(same, old);
    expect(same.metadata.annotations[TemplateGenerationAnnotation]).toBe('3');
    const changed = ds((o) => {
      o.spec.template.spec.containers[0].image = 'fluent/fluentd:v1.17';
      o.metadata.annotations = { [TemplateGenerationAnnotation]: '99' };
    });
    k.strategy.prepareForUpdate!(changed, old);
    expect(changed.metadata.annotations[TemplateGenerationAnnotation]).toBe('4');
  });
});

describe('DaemonSet table, selectors, schema', () => {
  it('prints kubectl cells', () => {
    const o = ds((x) => (x.status = { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 1, numberAvailable: 2 }));
    expect(k.printerColumns.map((c) => c.name)).toEqual(['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers', 'Images', 'Selector']);
    expect(k.printerColumns.map((c) => c.cell(o, now))).toEqual(['fluentd', 3, 3, 2, 1, 2, 'kubernetes.io/os=linux', '24h', 'fluentd', 'fluent/fluentd:v1.16', 'app=fluentd']);
    expect(k.printerColumns.map((c) => c.priority)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    const bare = ds((x) => delete x.spec.template.spec.nodeSelector);
    expect(k.printerColumns[6].cell(bare, now)).toBe('<none>');
    expect(k.printerColumns[1].cell(bare, now)).toBe(0);
  });
  it('has field selectors, names and verbs as kube-apiserver', () => {
    expect(Object.keys(k.fieldSelector.fields)).toEqual(['metadata.name', 'metadata.namespace']);
    expect(k.fieldSelector.fields['metadata.namespace'](ds())).toBe('kube-system');
    expect(k.fieldSelector.unsupported).toBe('known-fields');
    expect(k.shortNames).toEqual(['ds']);
    expect(k.categories).toEqual(['all']);
    expect(k.subresources).toEqual({ status: { verbs: ['get', 'patch', 'update'] } });
  });
  it('strips unknown fields and rejects wrong JSON types', () => {
    const parsed: any = k.schema.parse({ ...ds(), bogus: 1, spec: { ...ds().spec, extra: true } });
    expect(parsed.bogus).toBeUndefined();
    expect(parsed.spec.extra).toBeUndefined();
    expect(parsed.spec.template.spec.containers[0].name).toBe('fluentd');
    expect(k.schema.safeParse({ spec: { minReadySeconds: 'x' } }).success).toBe(false);
    expect(k.schema.safeParse({ spec: { updateStrategy: { rollingUpdate: { maxSurge: '10%' } } } }).success).toBe(true);
  });
});
