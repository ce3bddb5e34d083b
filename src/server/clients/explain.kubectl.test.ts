// kubectl explain reads /openapi/v3: named components with $refs make it print
// upstream's type names (<DaemonSetSpec>, <IntOrString>, map[string]Quantity,
// []Container) and -required- markers, where it printed <Object> for every field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let k: Kubectl;

beforeAll(async () => {
  s = await startTestServer();
  k = kubectlFor(s);
});
afterAll(async () => {
  await s?.stop();
});

const explain = async (path: string) => {
  const r = await k('explain', path);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('kubectl explain', () => {
  it('shows type names and required fields of a DaemonSet', async () => {
    const spec = await explain('daemonset.spec');
    expect(spec).toContain('FIELD: spec <DaemonSetSpec>');
    expect(spec).toMatch(/selector\t<LabelSelector> -required-/);
    expect(spec).toMatch(/template\t<PodTemplateSpec> -required-/);
    expect(spec).toMatch(/updateStrategy\t<DaemonSetUpdateStrategy>\n/);
    expect(await explain('daemonset.spec.updateStrategy.rollingUpdate')).toMatch(/maxSurge\t<IntOrString>/);
    expect(await explain('daemonset.spec.template.spec')).toMatch(/containers\t<\[\]Container> -required-/);
    const resources = await explain('daemonset.spec.template.spec.containers.resources');
    expect(resources).toMatch(/limits\t<map\[string\]Quantity>/);
    expect(await explain('daemonset.metadata')).toMatch(/creationTimestamp\t<string>/);
  });

  it('walks into every pod volume source', async () => {
    const csi = await explain('pods.spec.volumes.csi');
    expect(csi).toContain('FIELD: csi <CSIVolumeSource>');
    expect(csi).toMatch(/driver\t<string> -required-/);
    expect(await explain('pods.spec.volumes.ephemeral.volumeClaimTemplate.spec')).toMatch(/accessModes\t<\[\]string>/);
    expect(await explain('volumeattachments.spec.source.inlineVolumeSpec')).toMatch(/nfs\t<NFSVolumeSource>/);
    const va = await explain('volumeattachments.spec');
    expect(va).toContain('FIELD: spec <VolumeAttachmentSpec>');
    expect(va).toMatch(/attacher\t<string> -required-/);
    expect(va).toMatch(/source\t<VolumeAttachmentSource> -required-/);
  });

  it('explains recursively', async () => {
    const r = await k('explain', 'daemonset.spec.template.spec.volumes', '--recursive');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\n  csi\t<CSIVolumeSource>\n    driver\t<string> -required-\n/);
    expect(r.stdout).toMatch(/\n  ephemeral\t<EphemeralVolumeSource>\n    volumeClaimTemplate\t<PersistentVolumeClaimTemplate>\n/);
  });

  it('lists enum values', async () => {
    expect(await explain('daemonset.spec.template.spec.dnsPolicy')).toMatch(/ENUM:\n\s+ClusterFirst\n\s+ClusterFirstWithHostNet/);
  });
});
