// Subresources that are actions on an object rather than views of it: POST
// pods/{name}/binding (the scheduler's "put this pod on that node") and POST
// pods/{name}/eviction (drain's "delete this pod, politely"). Both answer a
// Success Status, not the object (K/pkg/registry/core/pod/storage/storage.go,
// K/pkg/registry/core/pod/storage/eviction.go).
import type { KubeObject } from '../../kinds/kind.ts';
import { clone } from '../../lib/json.ts';
import { rfc3339 } from '../../lib/duration.ts';
import { errors, type Status } from '../http/status.ts';
import { parseDeleteOptions } from './options.ts';
import type { Store, WriteContext } from './store.ts';

export type SubresourceAction = (store: Store, namespace: string | undefined, name: string, body: unknown, ctx: WriteContext) => Promise<Status>;

/** What create.go answers for a Status result: the Status with the 201 of a create. */
const created = (): Status => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });

const asObject = (body: unknown): Record<string, any> => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, any>) : {});

function checkBodyKind(b: Record<string, any>, kind: string, apiVersions: string[]) {
  if ((b.kind !== undefined && b.kind !== kind) || (b.apiVersion !== undefined && !apiVersions.includes(b.apiVersion))) {
    throw errors.badRequest(`${b.kind ?? ''} in version "${b.apiVersion ?? ''}" cannot be handled as a ${kind}: expected ${apiVersions[0]} ${kind}`);
  }
}

/**
 * Eviction: the pod is deleted through the normal (graceful) delete with the
 * Eviction's deleteOptions. Upstream first checks the PodDisruptionBudgets that
 * select the pod and answers 429 when one would be violated; this server serves
 * no PodDisruptionBudgets, so every eviction is allowed.
 */
const eviction: SubresourceAction = async (store, namespace, name, body, ctx) => {
  const b = asObject(body);
  checkBodyKind(b, 'Eviction', ['policy/v1', 'policy/v1beta1']);
  if ((b.metadata?.name ?? '') !== name) throw errors.badRequest('name in URL does not match name in Eviction object');
  const opts = parseDeleteOptions(b.deleteOptions, new URLSearchParams());
  opts.dryRun ||= ctx.dryRun;
  await store.delete(namespace, name, opts, { dryRun: opts.dryRun, warnings: ctx.warnings });
  return created();
};

/**
 * Binding: sets spec.nodeName exactly once (a second binding is a 409 that
 * names `pods/binding`), copies the Binding's annotations onto the pod and
 * marks it PodScheduled.
 */
const binding: SubresourceAction = async (store, namespace, name, body, ctx) => {
  const b = asObject(body);
  checkBodyKind(b, 'Binding', ['v1']);
  if ((b.metadata?.name ?? '') !== name) throw errors.badRequest('name in URL does not match name in Binding object');
  const target = asObject(b.target);
  // ValidatePodBinding's errors reach the client as a plain (500) error upstream.
  const problems: string[] = [];
  if (target.kind && target.kind !== 'Node') problems.push(`target.kind: Unsupported value: "${target.kind}": supported values: "Node"`);
  if (!target.name) problems.push('target.name: Required value');
  if (problems.length) throw errors.internal(problems.length > 1 ? `[${problems.join(', ')}]` : problems[0]);
  const conflict = (why: string) => errors.conflict({ group: '', plural: 'pods/binding', kind: 'Binding' }, name, why);
  await store.guaranteedUpdate(
    namespace,
    name,
    (current: KubeObject) => {
      const pod = current as KubeObject & { spec?: any; status?: any };
      if (pod.metadata.deletionTimestamp) throw conflict(`pod ${name} is being deleted, cannot be assigned to a host`);
      if (pod.spec?.nodeName) throw conflict(`pod ${name} is already assigned to node ${JSON.stringify(pod.spec.nodeName)}`);
      pod.spec = { ...pod.spec, nodeName: target.name };
      const annotations = b.metadata?.annotations;
      if (annotations && Object.keys(annotations).length) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
      const conditions: any[] = clone(pod.status?.conditions ?? []);
      const scheduled = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(new Date()) };
      const i = conditions.findIndex((c) => c.type === 'PodScheduled');
      if (i < 0) conditions.push(scheduled);
      else if (conditions[i].status !== 'True') conditions[i] = { ...conditions[i], ...scheduled };
      pod.status = { ...pod.status, conditions };
      return pod;
    },
    ctx,
    'binding',
  );
  return created();
};

/** Action subresources by name; the kind's definition says which of them it serves. */
export const subresourceActions: Record<string, SubresourceAction> = { eviction, binding };
