import { describe, expect, it } from 'vitest';
import { Path, renderFieldError } from '../lib/field.ts';
import { defaultPodSpec, podKind as k, podSummary, qosClass, validatePodSpec } from './pod.ts';

const lines = (errs: any[]) => errs.map(renderFieldError);
const now = new Date('2026-01-10T00:00:00Z');

function pod(over: (o: any) => void = () => {}): any {
  const o: any = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', creationTimestamp: '2026-01-09T23:00:00Z' },
    spec: {
      nodeName: 'node-1',
      serviceAccountName: 'default',
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          command: ['nginx'],
          args: ['-g', 'daemon off;'],
          ports: [{ name: 'http', containerPort: 80 }],
          env: [
            { name: 'MODE', value: 'prod' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'CFG', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'mode' } } },
          ],
          resources: { limits: { cpu: '500m', memory: '128Mi' } },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
          livenessProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: 5 },
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
        },
      ],
      initContainers: [{ name: 'init', image: 'busybox', command: ['true'] }],
      volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cfg' } }],
      tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } }],
        },
      },
    },
  };
  k.defaults(o);
  over(o);
  return o;
}

const spec = (o: any) => lines(validatePodSpec(o.spec, new Path(['spec'])));

describe('Pod defaults', () => {
  it('applies PodSpec, container, probe and volume defaults', () => {
    const o = pod();
    expect(o.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      enableServiceLinks: true,
    });
    const c = o.spec.containers[0];
    expect(c.imagePullPolicy).toBe('IfNotPresent');
    expect(o.spec.initContainers[0].imagePullPolicy).toBe('Always');
    expect(c.terminationMessagePath).toBe('/dev/termination-log');
    expect(c.terminationMessagePolicy).toBe('File');
    expect(c.ports[0].protocol).toBe('TCP');
    expect(c.env[1].valueFrom.fieldRef.apiVersion).toBe('v1');
    expect(c.resources.requests).toEqual({ cpu: '500m', memory: '128Mi' });
    expect(o.spec.initContainers[0].resources).toEqual({});
    expect(c.livenessProbe).toMatchObject({ timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, initialDelaySeconds: 5 });
    expect(c.readinessProbe.httpGet).toMatchObject({ path: '/healthz', scheme: 'HTTP' });
    expect(o.spec.volumes[1].configMap.defaultMode).toBe(420);
  });
  it('picks the pull policy from the tag', () => {
    const policy = (image: string) => {
      const s: any = { containers: [{ name: 'c', image }] };
      defaultPodSpec(s);
      return s.containers[0].imagePullPolicy;
    };
    expect(policy('nginx')).toBe('Always');
    expect(policy('nginx:latest')).toBe('Always');
    expect(policy('registry:5000/nginx')).toBe('Always');
    expect(policy('registry:5000/nginx:1.2')).toBe('IfNotPresent');
    expect(policy('nginx@sha256:abcd')).toBe('IfNotPresent');
  });
  it('gives a volume without source an emptyDir and is idempotent', () => {
    const s: any = { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v' }, { name: 's', secret: { secretName: 's' } }] };
    defaultPodSpec(s);
    expect(s.volumes[0].emptyDir).toEqual({});
    expect(s.volumes[1].secret.defaultMode).toBe(420);
    const once = structuredClone(s);
    defaultPodSpec(s);
    expect(s).toEqual(once);
  });
});

describe('PodSpec validation', () => {
  it('accepts a realistic pod', () => {
    expect(lines(k.validate(pod(), {}))).toEqual([]);
  });
  it('validates container names, images and uniqueness', () => {
    expect(spec(pod((o) => (o.spec.containers[0].name = 'Web')))[0]).toMatch(/^spec\.containers\[0\]\.name: Invalid value: "Web": a lowercase RFC 1123 label/);
    expect(spec(pod((o) => (o.spec.containers[0].name = '')))).toEqual(['spec.containers[0].name: Required value']);
    expect(spec(pod((o) => (o.spec.initContainers[0].name = 'web')))).toEqual(['spec.initContainers[0].name: Duplicate value: "web"']);
    expect(spec(pod((o) => (o.spec.containers[0].image = '')))).toEqual(['spec.containers[0].image: Required value']);
    expect(spec(pod((o) => delete o.spec.containers))).toEqual(['spec.containers: Required value']);
  });
  it('validates ports', () => {
    const port = (p: any) => spec(pod((o) => (o.spec.containers[0].ports = [p])));
    expect(port({ containerPort: 70000, protocol: 'TCP' })).toEqual(['spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive']);
    expect(port({ containerPort: 80, protocol: 'ICMP' })).toEqual([
      'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ]);
    expect(port({ containerPort: 80, hostPort: 0, protocol: 'TCP', name: 'web_http' })).toEqual([
      'spec.containers[0].ports[0].name: Invalid value: "web_http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
    expect(
      spec(pod((o) => (o.spec.containers[0].ports = [{ name: 'a', containerPort: 1, protocol: 'TCP' }, { name: 'a', containerPort: 2, protocol: 'TCP' }]))),
    ).toEqual(['spec.containers[0].ports[1].name: Duplicate value: "a"']);
    expect(port({ protocol: 'TCP' })).toEqual(['spec.containers[0].ports[0].containerPort: Required value']);
  });
  it('validates volumes and mounts', () => {
    expect(spec(pod((o) => o.spec.volumes.push({ name: 'data', emptyDir: {} })))).toEqual(['spec.volumes[2].name: Duplicate value: "data"']);
    expect(spec(pod((o) => (o.spec.volumes[0] = { name: 'data', hostPath: {} })))).toEqual([
      'spec.volumes[0].hostPath.path: Required value',
      'spec.containers[0].volumeMounts[0].name: Not found: "data"',
    ]);
    expect(spec(pod((o) => (o.spec.volumes[0] = { name: 'data', emptyDir: {}, hostPath: { path: '/x', type: '' } })))).toEqual([
      'spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type',
      'spec.containers[0].volumeMounts[0].name: Not found: "data"',
    ]);
  });
  it('validates resources', () => {
    expect(spec(pod((o) => (o.spec.containers[0].resources = { limits: { cpu: '-1' } })))).toEqual([
      'spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    expect(spec(pod((o) => (o.spec.containers[0].resources = { limits: { cpu: '1' }, requests: { cpu: '2' } })))).toEqual([
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    ]);
    expect(spec(pod((o) => (o.spec.containers[0].resources = { limits: { 'example.com/gpu': '1.5' } })))).toEqual([
      'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "1.5": must be an integer',
    ]);
  });
  it('validates policies and probes', () => {
    expect(spec(pod((o) => (o.spec.restartPolicy = 'Sometimes')))).toEqual([
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]);
    expect(spec(pod((o) => (o.spec.containers[0].imagePullPolicy = 'Maybe')))).toEqual([
      'spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"',
    ]);
    expect(spec(pod((o) => (o.spec.containers[0].livenessProbe.successThreshold = 2)))).toEqual(['spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1']);
    expect(spec(pod((o) => (o.spec.containers[0].livenessProbe = { periodSeconds: 10, successThreshold: 1 })))).toEqual([
      'spec.containers[0].livenessProbe: Required value: must specify a handler type',
    ]);
    expect(spec(pod((o) => (o.spec.initContainers[0].readinessProbe = { exec: { command: ['x'] } })))).toEqual([
      'spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
    ]);
  });
  it('validates tolerations', () => {
    const tol = (t: any) => spec(pod((o) => (o.spec.tolerations = [t])));
    expect(tol({ operator: 'Equal', value: 'x' })).toEqual([
      'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ]);
    expect(tol({ key: 'k', operator: 'Exists', value: 'v' })).toEqual([
      'spec.tolerations[0].operator: Invalid value: {"Key":"k","Operator":"Exists","Value":"v","Effect":"","TolerationSeconds":null}: value must be empty when `operator` is \'Exists\'',
    ]);
    expect(tol({ key: 'k', operator: 'Like' })).toEqual(['spec.tolerations[0].operator: Unsupported value: "Like": supported values: "Equal", "Exists"']);
    expect(tol({ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 })).toEqual([
      "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    ]);
    expect(tol({ key: 'k', operator: 'Exists', effect: 'Never' })).toEqual([
      'spec.tolerations[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
    expect(tol({ operator: 'Exists' })).toEqual([]);
  });
  it('validates the node selector and affinity', () => {
    expect(spec(pod((o) => (o.spec.nodeSelector = { 'a b': 'x' })))[0]).toMatch(/^spec\.nodeSelector: Invalid value: "a b"/);
    expect(spec(pod((o) => (o.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight = 0)))).toEqual([
      'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
    ]);
  });
  it('validates env sources', () => {
    expect(spec(pod((o) => (o.spec.containers[0].env = [{ name: 'A', value: 'x', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }])))).toEqual([
      'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    ]);
    expect(spec(pod((o) => (o.spec.containers[0].env = [{ name: 'A=B' }])))).toEqual([
      "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
    ]);
  });
});

describe('Pod update and status', () => {
  it('allows image changes but not other spec changes', () => {
    const old = pod((o) => (o.metadata.uid = 'u'));
    expect(k.validate(pod((o) => ((o.metadata.uid = 'u'), (o.spec.containers[0].image = 'nginx:1.28'))), { old })).toEqual([]);
    const changed = lines(k.validate(pod((o) => ((o.metadata.uid = 'u'), (o.spec.nodeName = 'node-2'))), { old }));
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatch(/^spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`/);
  });
  it('sets Pending and the QoS class on create', () => {
    const o = pod((x) => (x.status = { phase: 'Running' }));
    k.strategy.prepareForCreate!(o);
    expect(o.status).toEqual({ phase: 'Pending', qosClass: 'Burstable' });
    expect(qosClass({ containers: [{ resources: { limits: { cpu: '1', memory: '1Gi' } } }] })).toBe('Guaranteed');
    expect(qosClass({ containers: [{ resources: {} }] })).toBe('BestEffort');
  });
});

describe('Pod table', () => {
  const running = (o: any) =>
    (o.status = {
      phase: 'Running',
      podIP: '10.0.0.5',
      podIPs: [{ ip: '10.0.0.5' }],
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'Initialized', status: 'True' }],
      initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          restartCount: 2,
          state: { running: { startedAt: '2026-01-09T23:50:00Z' } },
          lastState: { terminated: { exitCode: 1, finishedAt: '2026-01-09T23:55:00Z' } },
        },
      ],
    });
  it('prints Ready, Status, Restarts, Age and wide cells', () => {
    expect(k.printerColumns.map((c) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(k.printerColumns.map((c) => c.cell(pod(running), now))).toEqual(['web-0', '1/1', 'Running', '2 (5m ago)', '60m', '10.0.0.5', 'node-1', '<none>', '<none>']);
  });
  it('derives the status reason', () => {
    expect(podSummary(pod(), now)).toEqual({ ready: '0/1', status: '', restarts: '0' });
    const waiting = pod((o) => (o.status = { phase: 'Pending', containerStatuses: [{ name: 'web', state: { waiting: { reason: 'ContainerCreating' } } }] }));
    expect(podSummary(waiting, now).status).toBe('ContainerCreating');
    const init = pod((o) => (o.status = { phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'PodInitializing' } } }] }));
    expect(podSummary(init, now).status).toBe('Init:0/1');
    const deleting = pod((o) => (running(o), (o.metadata.deletionTimestamp = '2026-01-10T00:00:30Z')));
    expect(podSummary(deleting, now).status).toBe('Terminating');
    const gates = pod((o) => (running(o), (o.spec.readinessGates = [{ conditionType: 'example.com/ready' }])));
    expect(k.printerColumns[8].cell(gates, now)).toBe('0/1');
  });
  it('has the pod field selectors with the field-label wording', () => {
    const o = pod(running);
    const f = k.fieldSelector.fields;
    expect(f['spec.nodeName'](o)).toBe('node-1');
    expect(f['spec.hostNetwork'](o)).toBe('false');
    expect(f['status.phase'](o)).toBe('Running');
    expect(f['status.podIP'](o)).toBe('10.0.0.5');
    expect(f['spec.restartPolicy'](o)).toBe('Always');
    expect(f['spec.schedulerName'](o)).toBe('default-scheduler');
    expect(f['spec.serviceAccountName'](o)).toBe('default');
    expect(k.fieldSelector.unsupported).toBe('field-label');
    expect(k.shortNames).toEqual(['po']);
    expect(Object.keys(k.subresources).sort()).toEqual(['binding', 'eviction', 'status']);
  });
  it('strips unknown fields and rejects wrong JSON types', () => {
    const parsed: any = k.schema.parse({ ...pod(), extra: 1, spec: { ...pod().spec, bogus: true } });
    expect(parsed.extra).toBeUndefined();
    expect(parsed.spec.bogus).toBeUndefined();
    expect(k.schema.safeParse({ spec: { containers: [{ ports: [{ containerPort: '80' }] }] } }).success).toBe(false);
  });
});
