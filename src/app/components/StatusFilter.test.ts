// The Status filter reads the state column as the table shows it: a node's
// state and cordon as two values, a pod's kubectl status (CrashLoopBackOff,
// not its phase), a VolumeAttachment's Attached, and passes an object that
// shows a value or does not.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kinds/kind.ts';
import { nodeKind } from '../../kinds/node.ts';
import { podKind } from '../../kinds/pod.ts';
import { volumeAttachmentKind } from '../../kinds/volumeattachment.ts';
import { stateColumnOf, statusPasses } from './StatusFilter.tsx';
import { networkPolicyKind } from '../../kinds/networkpolicy.ts';

const node = (ready: string, unschedulable?: boolean) =>
  ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', uid: 'n' }, spec: { unschedulable }, status: { conditions: [{ type: 'Ready', status: ready }] } }) as KubeObject;

describe('the Status filter', () => {
  it("takes a node's state and its cordon as values of their own", () => {
    const { parts, name, yesNo } = stateColumnOf(nodeKind)!;
    expect([name, yesNo]).toEqual(['Status', false]);
    expect(parts(node('True'))).toEqual(['Ready']);
    expect(parts(node('False', true))).toEqual(['NotReady', 'SchedulingDisabled']);
    expect(statusPasses(parts(node('True', true)), 'SchedulingDisabled')).toBe(true);
    expect(statusPasses(parts(node('True', true)), '!Ready')).toBe(false);
    expect(statusPasses(parts(node('Unknown')), '!Ready')).toBe(true);
  });

  it("reads a pod's status as kubectl prints it: a crashing container's pod is CrashLoopBackOff, not Running", () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', uid: 'p' },
      spec: { containers: [{ name: 'c' }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
    } as KubeObject;
    const { parts } = stateColumnOf(podKind)!;
    expect(parts(pod)).toEqual(['CrashLoopBackOff']);
    expect(statusPasses(parts(pod), '!Running')).toBe(true);
    expect(parts(pod)).toBe(parts(pod)); // read once per object
  });

  it("reads a VolumeAttachment's Attached column, true or false, with no 'not' to offer", () => {
    const { parts, name, yesNo } = stateColumnOf(volumeAttachmentKind)!;
    expect([name, yesNo]).toEqual(['Attached', true]);
    const va = (attached?: boolean) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'v', uid: 'v' }, spec: {}, status: attached === undefined ? undefined : { attached } }) as KubeObject;
    expect(parts(va(true))).toEqual(['true']);
    // Not yet attached (no status) reads as the table shows it: false.
    expect(parts(va())).toEqual(['false']);
    expect(statusPasses(parts(va(false)), 'false')).toBe(true);
  });

  it('is not offered for a kind without a state column', () => {
    expect(stateColumnOf(networkPolicyKind)).toBeUndefined();
  });
});
