// The whole core/v1 PodSpec: generated shapes checked against upstream's
// OpenAPI, kept in step with the generator, and the defaults and validation
// layered on them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Path, renderFieldError } from '../lib/field.ts';
import { generate, OUTPUT } from './generate/generate.ts';
import { daemonSetKind } from './daemonset.ts';
import { defaultPodSpec, podKind, validatePodSpec, volumeSources } from './pod.ts';
import { corev1 } from './generated/corev1.ts';
import { componentNames, shapeOf, unknownFields, unwrap } from './schema.ts';
import { VOLUME_SOURCE_ORDER } from './volumesource.ts';


const lines = (errs: any[]) => errs.map(renderFieldError);
const upstream = JSON.parse(readFileSync(join(import.meta.dirname, 'testdata', 'upstream', 'openapi-v3-properties.json'), 'utf8'));
const corpusDir = join(import.meta.dirname, 'testdata', 'daemonsets');
const corpus = readdirSync(corpusDir)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => ({ file: f, obj: parse(readFileSync(join(corpusDir, f), 'utf8')) }));

/** Every named schema reachable from `schema`, by upstream component name. */
function namedSchemas(schema: any, out = new Map<string, any>(), seen = new Set<any>()): Map<string, any> {
  const { schema: u } = unwrap(schema);
  if (seen.has(u)) return out;
  seen.add(u);
  const name = componentNames.get(u);
  if (name) out.set(name, u);
  const d = (u as any)._zod.def;
  if (d.type === 'object') for (const v of Object.values(d.shape)) namedSchemas(v, out, seen);
  if (d.type === 'array') namedSchemas(d.element, out, seen);
  if (d.type === 'record') namedSchemas(d.valueType, out, seen);
  return out;
}

describe('generated shapes', () => {
  it('are what the generator makes from the installed API package (regenerate with npx tsx src/kinds/generate/generate.ts)', () => {
    expect(readFileSync(OUTPUT, 'utf8')).toBe(generate());
  });

  it("have every property and required list of upstream's OpenAPI (1.32)", () => {
    const ours = namedSchemas(daemonSetKind.schema);
    const later = upstream.addedAfter132 as Record<string, string>;
    for (const [name, want] of Object.entries<any>(upstream.schemas)) {
      const schema = ours.get(name);
      expect(schema, name).toBeDefined();
      const short = name.split('.').pop();
      const props = Object.keys(shapeOf(schema)!);
      expect(props.sort(), name).toEqual(want.properties.filter((p: string) => !later[`${short}.${p}`]).sort());
      expect([...((unwrap(schema).meta.required as string[]) ?? [])].sort(), `${name} required`).toEqual([...want.required].sort());
    }
  });

  it('list every volume source upstream validates, in its order', () => {
    expect([...VOLUME_SOURCE_ORDER].sort()).toEqual([...volumeSources()].sort());
  });

  it('know every field of the corpus manifests', () => {
    for (const { file, obj } of corpus) expect(unknownFields(daemonSetKind.schema, obj), file).toEqual([]);
  });

  it('keep csi, ephemeral and every other volume source through a parse (they were stripped, then defaulted to emptyDir)', () => {
    const spec = {
      containers: [{ name: 'c', image: 'x:1' }],
      volumes: [
        { name: 'a', csi: { driver: 'secrets-store.csi.k8s.io', volumeAttributes: { k: 'v' } } },
        { name: 'b', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
        { name: 'c', nfs: { server: 'nfs.example.com', path: '/exports' } },
        { name: 'd', image: { reference: 'quay.io/x/y:1', pullPolicy: 'IfNotPresent' } },
      ],
    };
    const parsed: any = corev1().PodSpec.parse(structuredClone(spec));
    defaultPodSpec(parsed);
    expect(parsed.volumes.map((v: any) => Object.keys(v).filter((k) => k !== 'name'))).toEqual([['csi'], ['ephemeral'], ['nfs'], ['image']]);
    expect(parsed.volumes[0].csi).toEqual(spec.volumes[0].csi);
  });

  it('carry maturity and deprecation from the upstream descriptions', () => {
    const podSpec = shapeOf(corev1().PodSpec)!;
    expect(unwrap(podSpec.serviceAccount).meta.maturity).toBe('deprecated');
    expect(unwrap(podSpec.hostUsers).meta.maturity).toBe('alpha');
    expect(unwrap(shapeOf(corev1().PersistentVolumeSpec)!.volumeAttributesClassName).meta.maturity).toBe('beta');
  });
});

function spec(over: (s: any) => void = () => {}): any {
  const s: any = { containers: [{ name: 'c', image: 'x:1' }] };
  over(s);
  defaultPodSpec(s);
  return s;
}
const errs = (s: any, isPod = false) => lines(validatePodSpec(s, new Path(['spec']), { isPod }));

describe('PodSpec defaults', () => {
  it('fill projected token expiry, downward API field versions, lifecycle HTTP hooks and ephemeral claim volume modes', () => {
    const s = spec((x) => {
      x.containers[0].lifecycle = { preStop: { httpGet: { port: 8080 } } };
      x.volumes = [
        { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 't' } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] } },
        { name: 'd', downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'e', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
        { name: 'r', rbd: { monitors: ['m'], image: 'i' } },
      ];
    });
    expect(s.volumes[0].projected).toEqual({
      defaultMode: 0o644,
      sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }] } }],
    });
    expect(s.volumes[1].downwardAPI.items[0].fieldRef.apiVersion).toBe('v1');
    expect(s.volumes[2].ephemeral.volumeClaimTemplate.spec.volumeMode).toBe('Filesystem');
    expect(s.volumes[3].rbd).toEqual({ monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
    expect(s.containers[0].lifecycle.preStop.httpGet).toEqual({ port: 8080, path: '/', scheme: 'HTTP' });
  });

  it('leave hostPort unset in templates and set it on pods with hostNetwork', () => {
    const template = spec((x) => ((x.hostNetwork = true), (x.containers[0].ports = [{ containerPort: 9100 }])));
    expect(template.containers[0].ports[0].hostPort).toBeUndefined();
    expect(errs(template)).toEqual([]);
    const pod: any = { metadata: { name: 'p', namespace: 'd' }, spec: structuredClone(template) };
    podKind.defaults(pod);
    expect(pod.spec.containers[0].ports[0].hostPort).toBe(9100);
    expect(lines(podKind.validate(pod, {}))).toEqual([]);
  });
});

describe('PodSpec validation', () => {
  it('accepts every corpus template', () => {
    for (const { file, obj } of corpus) {
      const ds = structuredClone(obj);
      daemonSetKind.defaults(ds);
      expect(lines(daemonSetKind.validate(ds, {})), file).toEqual([]);
    }
  });

  it('requires exactly one volume source, and each source its own fields', () => {
    const s = spec((x) => {
      x.volumes = [
        { name: 'two', hostPath: { path: '/x' }, csi: { driver: 'd.example.com' } },
        { name: 'csi', csi: {} },
        { name: 'nfs', nfs: { server: 's', path: 'relative' } },
        { name: 'eph', ephemeral: {} },
        { name: 'fc', fc: { targetWWNs: ['500a0982991b8dc5'] } },
        { name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 60 } }] } },
      ];
    });
    expect(errs(s)).toEqual([
      'spec.volumes[0].csi: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[1].csi.driver: Required value',
      // As upstream's ValidateCSIDriverName: the empty name is also not a subdomain.
      expect.stringMatching(/^spec\.volumes\[1\]\.csi\.driver: Invalid value: "": a lowercase RFC 1123 subdomain/),
      'spec.volumes[2].nfs.path: Invalid value: "relative": must be an absolute path',
      'spec.volumes[3].ephemeral.volumeClaimTemplate: Required value',
      'spec.volumes[4].fc.lun: Required value: lun is required if targetWWNs is specified',
      'spec.volumes[5].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    ]);
  });

  it('checks projected sources: one kind each, no path claimed twice', () => {
    const s = spec((x) => {
      x.volumes = [
        {
          name: 'p',
          projected: {
            sources: [
              { configMap: { name: 'a', items: [{ key: 'k', path: 'same' }] } },
              { configMap: { name: 'b', items: [{ key: 'k', path: 'same' }] } },
              { configMap: { name: 'c' }, secret: { name: 'd' } },
            ],
          },
        },
      ];
    });
    expect(errs(s)).toEqual([
      'spec.volumes[0].projected: Invalid value: "b": conflicting duplicate paths',
      'spec.volumes[0].projected.sources[2]: Forbidden: may not specify more than 1 volume type per source',
    ]);
  });

  it('allows probes and lifecycle only on sidecar init containers, and restartPolicy only on init containers', () => {
    const probe = { exec: { command: ['true'] } };
    const s = spec((x) => {
      x.initContainers = [
        { name: 'sidecar', image: 'x:1', restartPolicy: 'Always', readinessProbe: probe, lifecycle: { preStop: { sleep: { seconds: 5 } } } },
        { name: 'once', image: 'x:1', lifecycle: { postStart: probe }, restartPolicy: 'OnFailure' },
      ];
      x.containers[0].restartPolicy = 'Always';
      x.containers[0].lifecycle = { postStart: {} };
    });
    expect(errs(s)).toEqual([
      'spec.initContainers[1].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'spec.initContainers[1].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always',
      'spec.containers[0].lifecycle.postStart: Required value: must specify a handler type',
      'spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers',
    ]);
  });

  it('checks mounts and devices: subPathExpr, Bidirectional propagation, recursiveReadOnly, device names', () => {
    const s = spec((x) => {
      x.volumes = [{ name: 'v', emptyDir: {} }];
      x.containers[0].volumeMounts = [
        { name: 'v', mountPath: '/a', subPath: 'x', subPathExpr: '$(POD)' },
        { name: 'v', mountPath: '/b', mountPropagation: 'Bidirectional' },
        { name: 'v', mountPath: '/c', recursiveReadOnly: 'Enabled' },
      ];
      x.containers[0].volumeDevices = [{ name: 'missing', devicePath: '/dev/xvda' }];
    });
    expect(errs(s)).toEqual([
      'spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "$(POD)": subPathExpr and subPath are mutually exclusive',
      'spec.containers[0].volumeMounts[1].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers',
      'spec.containers[0].volumeMounts[2].recursiveReadOnly: Forbidden: may only be specified when readOnly is true',
      'spec.containers[0].volumeDevices[0].name: Not found: "missing"',
    ]);
  });

  it('checks topology spread, DNS config, host aliases, scheduling gates and ephemeral containers', () => {
    const s = spec((x) => {
      x.topologySpreadConstraints = [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'Maybe' }];
      x.dnsPolicy = 'None';
      x.dnsConfig = { searches: ['example.com'] };
      x.hostAliases = [{ ip: '10.0.0.300', hostnames: ['a'] }];
      x.schedulingGates = [{ name: 'example.com/gate' }, { name: 'example.com/gate' }];
      x.ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
    });
    expect(errs(s)).toEqual([
      'spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
      'spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None',
      'spec.hostAliases[0].ip: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
      'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
      'spec.schedulingGates[1].name: Duplicate value: "example.com/gate"',
    ]);
    const pod: any = { metadata: { name: 'p', namespace: 'd' }, spec: spec((x) => (x.ephemeralContainers = [{ name: 'd', image: 'b' }])) };
    expect(lines(podKind.validate(pod, {}))).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
  });

  it('checks envFrom: one source each, named', () => {
    const s = spec((x) => {
      x.containers[0].envFrom = [{ prefix: 'A=', configMapRef: { name: 'cfg' } }, { secretRef: {} }, {}];
    });
    expect(errs(s)).toEqual([
      'spec.containers[0].envFrom[0].prefix: Invalid value: "A=": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
      'spec.containers[0].envFrom[1].secretRef.name: Required value',
      'spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`',
    ]);
  });

  it('refuses a host port taken twice (protocol/hostIP/port)', () => {
    const s = spec((x) => {
      x.containers = [
        { name: 'a', image: 'x:1', ports: [{ containerPort: 9100, hostPort: 9100 }] },
        { name: 'b', image: 'x:1', ports: [{ containerPort: 9101, hostPort: 9100 }, { containerPort: 9100, hostPort: 9100, protocol: 'UDP' }] },
      ];
    });
    expect(errs(s)).toEqual(['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//9100"']);
  });

  it('checks seccomp and AppArmor profiles', () => {
    const s = spec((x) => {
      x.securityContext = { appArmorProfile: { type: 'Localhost' } };
      x.containers[0].securityContext = { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'p.json' } };
    });
    expect(errs(s)).toEqual([
      'spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "p.json": can only be set when seccomp type is Localhost',
      'spec.securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost',
    ]);
  });
});

describe("VolumeAttachment's inlineVolumeSpec (PersistentVolumeSpec)", () => {
  const va = (inline: any): any => ({
    metadata: { name: 'va' },
    spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { inlineVolumeSpec: inline } },
  });

  it('keeps every upstream source instead of stripping it, and says why a non-CSI one is refused', async () => {
    const { volumeAttachmentKind } = await import('./volumeattachment.ts');
    const o = va({ accessModes: ['ReadWriteOnce'], rbd: { monitors: ['10.0.0.1:6789'], image: 'disk' } });
    const parsed: any = volumeAttachmentKind.schema.parse(o);
    volumeAttachmentKind.defaults(parsed);
    expect(parsed.spec.source.inlineVolumeSpec.rbd).toEqual({ monitors: ['10.0.0.1:6789'], image: 'disk', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
    expect(lines(volumeAttachmentKind.validate(parsed, {}))).toEqual([
      'spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes',
    ]);
    const two = va({ accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'h' }, nfs: { server: 's', path: '/p' } });
    expect(lines(volumeAttachmentKind.validate(volumeAttachmentKind.schema.parse(two), {}))).toEqual([
      'spec.source.inlineVolumeSpec.csi: Forbidden: may not specify more than 1 volume type',
    ]);
  });
});
