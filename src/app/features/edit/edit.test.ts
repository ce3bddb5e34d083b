import { describe, expect, it } from 'vitest';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { nodeKind } from '../../../kinds/node.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { rolloutImpact } from './impact.ts';
import { rebase, threeWay } from './threeway.ts';

const ds = (image: string, labels: Record<string, string> = {}, strategy = 'RollingUpdate'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'a', namespace: 'default', labels, resourceVersion: '1', generation: 1 },
  spec: { updateStrategy: { type: strategy }, template: { spec: { containers: [{ name: 'c', image }] } } },
  status: { desiredNumberScheduled: 5 },
});

describe('does a change roll out the pods (from the kind\'s rollout data)', () => {
  it('a label change does not', () => {
    expect(rolloutImpact(daemonSetKind, ds('v1'), ds('v1', { team: 'x' }))).toMatchObject({ rollsOut: false, summary: expect.stringMatching(/^Pods are not replaced/) });
  });
  it('an image change does, on every scheduled node', () => {
    const impact = rolloutImpact(daemonSetKind, ds('v1'), ds('v2'))!;
    expect(impact.rollsOut).toBe(true);
    expect(impact.summary).toMatch(/^This change rolls out new pods on 5 nodes/);
    expect(impact.fields).toEqual(['spec.template.spec.containers[0].image']);
  });
  it('with OnDelete it makes a new revision that replaces pods only as they are deleted', () => {
    expect(rolloutImpact(daemonSetKind, ds('v1', {}, 'OnDelete'), ds('v2', {}, 'OnDelete'))!.summary).toMatch(/only as they are deleted/);
  });
  it('says nothing for a kind without pods, or for a new object', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } };
    expect(rolloutImpact(nodeKind, node, node)).toBeUndefined();
    expect(rolloutImpact(daemonSetKind, undefined, ds('v1'))).toBeUndefined();
  });
});

describe('three-way view of a 409', () => {
  const base = ds('v1', { app: 'a' });
  const theirs = { ...ds('v2', { app: 'a', theirs: 'yes' }), metadata: { ...ds('v2', { app: 'a', theirs: 'yes' }).metadata, resourceVersion: '7', generation: 2 } };

  it('lists each side\'s changes and the field both changed differently', () => {
    const mine = ds('v3', { app: 'a', mine: 'yes' });
    const t = threeWay(base, theirs, mine);
    expect(t.theirChanges).toEqual(['metadata.labels.theirs', 'spec.template.spec.containers[0].image']);
    expect(t.myChanges).toEqual(['metadata.labels.mine', 'spec.template.spec.containers[0].image']);
    expect(t.conflicts).toEqual([{ field: 'spec.template.spec.containers[0].image', path: ['spec', 'template', 'spec', 'containers', 0, 'image'], base: 'v1', theirs: 'v2', mine: 'v3' }]);
  });

  it('the same change on both sides is no conflict; new labels on both sides of a missing map are two changes', () => {
    expect(threeWay(base, theirs, ds('v2', { app: 'a' })).conflicts).toEqual([]);
    const bare = { ...base, metadata: { name: 'a', namespace: 'default' } };
    const a = { ...bare, metadata: { ...bare.metadata, labels: { x: '1' } } };
    const b = { ...bare, metadata: { ...bare.metadata, labels: { y: '1' } } };
    expect(threeWay(bare, a, b).conflicts).toEqual([]);
  });

  it('rebases: their changes kept, mine replayed, each conflict as chosen', () => {
    const mine = ds('v3', { app: 'a', mine: 'yes' });
    const keepMine = rebase(base, theirs, mine, { 'spec.template.spec.containers[0].image': 'mine' }) as any;
    expect(keepMine.metadata.labels).toEqual({ app: 'a', theirs: 'yes', mine: 'yes' });
    expect(keepMine.spec.template.spec.containers[0].image).toBe('v3');
    expect(keepMine.metadata.resourceVersion).toBe('7');
    const keepTheirs = rebase(base, theirs, mine, { 'spec.template.spec.containers[0].image': 'theirs' }) as any;
    expect(keepTheirs.spec.template.spec.containers[0].image).toBe('v2');
    expect(keepTheirs.metadata.labels.mine).toBe('yes');
  });
});
