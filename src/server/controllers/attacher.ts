// A simulated CSI external-attacher for the drivers it is configured with:
// it puts its finalizer on their VolumeAttachments, "attaches" after a delay
// (status.attached, attachmentMetadata) and records the volume in the node's
// status.volumesAttached, as the attach/detach controller does; on deletion
// it detaches, drops the volume from the node, then removes its finalizer.
// Annotations inject failures: attachError / detachError with message and
// time (errorCode is an alpha field the server drops while its gate is off).
import { EventBroadcaster, referenceTo } from '../events/recorder.ts';
import { volumeAttachmentKind } from '../../kinds/volumeattachment.ts';
import { nodeKind } from '../../kinds/node.ts';
import type { KubeObject } from '../../kinds/kind.ts';
import { rfc3339 } from '../../lib/duration.ts';
import { controllerIdentity, type ControllerContext } from './context.ts';
import { Annotations, DEFAULT_DRIVERS, hex, timingOf, type SimulationOptions } from './simulation.ts';
import { inform } from '../watch/informer.ts';
import { WorkQueue } from './workqueue.ts';

/** external-attacher's finalizer name: `external-attacher/` + the driver name with other characters than [a-zA-Z0-9-] as '-'. */
export function attacherFinalizer(driver: string): string {
  let name = driver.replace(/[^a-zA-Z0-9-]/g, '-');
  if (name.endsWith('-')) name += 'X';
  return `external-attacher/${name}`;
}

/** The name the attach/detach controller gives a CSI volume in node.status.volumesAttached. */
export function attachedVolumeName(va: KubeObject): string {
  const spec = va.spec as any;
  const handle = spec?.source?.inlineVolumeSpec?.csi?.volumeHandle ?? spec?.source?.persistentVolumeName ?? '';
  return `kubernetes.io/csi/${spec?.attacher}^${handle}`;
}

const GRPC_INTERNAL = 13;
const GRPC_NOT_FOUND = 5;

export function startAttacher(ctx: ControllerContext, opts: SimulationOptions): () => void {
  const drivers = new Set(opts.drivers ?? DEFAULT_DRIVERS);
  const delayMs = timingOf(opts).attachSeconds * 1000;
  const client = ctx.client.as(controllerIdentity('csi-attacher'));
  const attachDetach = ctx.client.as(controllerIdentity('attachdetach-controller'));
  const vaStore = ctx.stores.get(volumeAttachmentKind)!;
  const nodeStore = ctx.stores.get(nodeKind)!;
  const started = new Map<string, { op: 'attach' | 'detach'; at: number }>();
  // The attach/detach controller reports attach outcomes (on the VolumeAttachment here, which stands in for the pod's volume).
  const broadcaster = new EventBroadcaster();
  const events = broadcaster.newRecorder(attachDetach, { component: 'attachdetach-controller' });
  const volumeOf = (va: KubeObject) => (va.spec as any)?.source?.persistentVolumeName ?? va.metadata.name;

  /** The operation's delay runs from when the attacher first took it up. */
  function waitFor(va: KubeObject, op: 'attach' | 'detach'): number {
    const uid = va.metadata.uid!;
    let s = started.get(uid);
    if (!s || s.op !== op) started.set(uid, (s = { op, at: Date.now() }));
    return s.at + delayMs - Date.now();
  }

  async function setNodeVolume(nodeName: string, name: string, attached: boolean) {
    await attachDetach.update(nodeKind, undefined, nodeName, (o) => {
      const status = ((o.status as any) ??= {});
      const list: any[] = (status.volumesAttached ?? []).filter((v: any) => v.name !== name);
      if (attached) list.push({ name, devicePath: `/dev/disk/by-id/csi-${hex(name, 16)}` });
      list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (list.length) status.volumesAttached = list;
      else delete status.volumesAttached;
    }, 'status');
  }

  const volumeError = (message: string, code: number) => ({ message, time: rfc3339(new Date()), errorCode: code });

  async function sync(name: string) {
    const va = ctx.cache.get(vaStore.keyFor(undefined, name))?.object;
    if (!va) return;
    const spec = va.spec as any;
    const status = (va.status as any) ?? {};
    if (!drivers.has(spec?.attacher)) return;
    const finalizer = attacherFinalizer(spec.attacher);
    const ann = va.metadata.annotations ?? {};
    const finalizers = va.metadata.finalizers ?? [];
    const volume = attachedVolumeName(va);
    const nodeName: string = spec.nodeName;

    if (va.metadata.deletionTimestamp) {
      if (!finalizers.includes(finalizer)) return;
      const wait = waitFor(va, 'detach');
      if (wait > 0) return queue.after(name, wait);
      const failure = ann[Annotations.detachError];
      if (failure) {
        if (status.detachError?.message !== failure) {
          await client.update(volumeAttachmentKind, undefined, name, (o) => void ((o.status as any).detachError = volumeError(failure, GRPC_INTERNAL)), 'status');
          events.event(referenceTo(volumeAttachmentKind, va), 'Warning', 'FailedDetachVolume', `DetachVolume.Detach failed for volume "${volumeOf(va)}" : ${failure}`);
        }
        return; // retried when the annotation changes
      }
      if (ctx.cache.get(nodeStore.keyFor(undefined, nodeName))) await setNodeVolume(nodeName, volume, false).catch(() => {});
      await client.update(volumeAttachmentKind, undefined, name, (o) => void (o.status = { attached: false }), 'status');
      await client.update(volumeAttachmentKind, undefined, name, (o) => {
        o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      });
      started.delete(va.metadata.uid!);
      return;
    }

    if (!finalizers.includes(finalizer)) {
      await client.update(volumeAttachmentKind, undefined, name, (o) => void (o.metadata.finalizers = [...(o.metadata.finalizers ?? []), finalizer]));
      return; // the write's event brings us back
    }
    if (status.attached) return;
    const wait = waitFor(va, 'attach');
    if (wait > 0) return queue.after(name, wait);
    const failure = ann[Annotations.attachError];
    const nodeExists = !!ctx.cache.get(nodeStore.keyFor(undefined, nodeName));
    if (failure || !nodeExists) {
      const [message, code] = failure ? [failure, GRPC_INTERNAL] : [`rpc error: code = NotFound desc = node "${nodeName}" not found`, GRPC_NOT_FOUND];
      if (status.attachError?.message !== message) {
        await client.update(volumeAttachmentKind, undefined, name, (o) => void (o.status = { attached: false, attachError: volumeError(message, code) }), 'status');
        events.event(referenceTo(volumeAttachmentKind, va), 'Warning', 'FailedAttachVolume', `AttachVolume.Attach failed for volume "${volumeOf(va)}" : ${message}`);
      }
      return; // retried when the annotation changes or the node appears
    }
    await setNodeVolume(nodeName, volume, true);
    await client.update(volumeAttachmentKind, undefined, name, (o) => {
      o.status = { attached: true, attachmentMetadata: { devicePath: `/dev/disk/by-id/csi-${hex(volume, 16)}`, driver: spec.attacher } };
    }, 'status');
    events.event(referenceTo(volumeAttachmentKind, va), 'Normal', 'SuccessfulAttachVolume', `AttachVolume.Attach succeeded for volume "${volumeOf(va)}"`);
  }

  const queue = new WorkQueue(sync, 8);
  const vaOnNode = (nodeName: string) => {
    for (const c of ctx.cache.list(vaStore.resourcePrefix)) if ((c.object.spec as any)?.nodeName === nodeName) queue.add(c.object.metadata.name!);
  };
  const informer = inform(ctx.cache, {
    list: [[vaStore.resourcePrefix, (c) => queue.add(c.object.metadata.name!)]],
    watch: [
      [
        vaStore.resourcePrefix,
        (e) => {
          if (e.type === 'DELETED') started.delete(e.object.object.metadata.uid!);
          else queue.add(e.object.object.metadata.name!);
        },
      ],
      [nodeStore.resourcePrefix, (e) => e.type === 'ADDED' && vaOnNode(e.object.object.metadata.name!)],
    ],
  });
  queue.startAfter(informer.synced);

  return () => {
    broadcaster.stop();
    queue.stop();
    informer.stop();
  };
}
