// Manifests on disk as the reachability engine's input: NetworkPolicies,
// Namespaces, Pods, and workloads standing for the pods they would create
// (one pod per workload, labelled and ported as its template: replicas are
// indistinguishable to every policy). Files are YAML (several documents per
// file) or JSON; `kind: List` is unwrapped; directories are read recursively.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { INTENTS_KEY, INTENTS_LABEL, parseIntents, type Intent, type NamespaceLike, type NetworkPolicyLike, type PodLike, type ReachabilityInput } from '../lib/reachability/index.ts';

interface Obj {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  items?: Obj[];
}

/** Where each workload kind keeps its pod template. */
const TEMPLATE_PATHS: Record<string, string[]> = {
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  ReplicationController: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
};

export interface IntentSource {
  /** File (and ConfigMap) the intents came from. */
  source: string;
  intents: Intent[];
}

export interface Manifests {
  input: ReachabilityInput;
  /** Pod key ("ns/name") to what it stands for ("Deployment web"), for pods made from workloads. */
  origins: Map<string, string>;
  /** Intents found in labelled ConfigMaps among the manifests. */
  intents: IntentSource[];
  errors: string[];
  files: number;
}

export function listFiles(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const e of readdirSync(p).sort()) if (!e.startsWith('.')) walk(join(p, e));
    } else if (st.isFile() && /\.(ya?ml|json)$/i.test(p)) out.push(p);
  };
  for (const p of paths) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) throw new Error(`${p}: no such file or directory`);
    if (st.isFile()) out.push(p);
    else walk(p);
  }
  return out;
}

/** Every object of a file: all YAML documents (JSON is YAML), Lists unwrapped. */
export function readObjects(file: string, errors: string[]): Obj[] {
  const text = readFileSync(file, 'utf8');
  const out: Obj[] = [];
  const add = (o: unknown) => {
    if (!o || typeof o !== 'object' || Array.isArray(o)) return;
    const obj = o as Obj;
    if (typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items)) obj.items.forEach(add);
    else out.push(obj);
  };
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) {
      errors.push(`${file}: ${doc.errors[0].message.split('\n')[0]}`);
      continue;
    }
    add(doc.toJS());
  }
  return out;
}

const getIn = (o: unknown, path: string[]): unknown => path.reduce<unknown>((x, k) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined), o);

/** The pod a workload's template describes, named after the workload. */
function podFromTemplate(o: Obj, templatePath: string[]): PodLike | undefined {
  const t = getIn(o, templatePath) as { metadata?: Obj['metadata']; spec?: PodLike['spec'] } | undefined;
  if (!t || !o.metadata?.name) return undefined;
  return { metadata: { name: o.metadata.name, namespace: o.metadata.namespace ?? 'default', labels: t.metadata?.labels ?? {} }, spec: t.spec ?? {} };
}

export function readManifests(paths: readonly string[]): Manifests {
  const errors: string[] = [];
  const files = listFiles(paths);
  const namespaces = new Map<string, NamespaceLike>();
  const policies: NetworkPolicyLike[] = [];
  const pods: PodLike[] = [];
  const origins = new Map<string, string>();
  const intents: IntentSource[] = [];
  const taken = new Set<string>();
  const addPod = (p: PodLike, origin?: string) => {
    const ns = p.metadata.namespace ?? 'default';
    let name = p.metadata.name!;
    // A workload named like a pod (or another kind's workload) of the namespace keeps both.
    if (taken.has(`${ns}/${name}`) && origin) name = `${name}-${origin.split(' ')[0].toLowerCase()}`;
    if (taken.has(`${ns}/${name}`)) {
      errors.push(`pod ${ns}/${name} is defined twice; the first definition is used`);
      return;
    }
    taken.add(`${ns}/${name}`);
    pods.push({ ...p, metadata: { ...p.metadata, name, namespace: ns } });
    if (origin) origins.set(`${ns}/${name}`, origin);
  };
  for (const file of files) {
    for (const o of readObjects(file, errors)) {
      const kind = o.kind ?? '';
      const name = o.metadata?.name;
      if (!name) {
        if (kind) errors.push(`${file}: a ${kind} without metadata.name is skipped`);
        continue;
      }
      const ns = o.metadata?.namespace ?? 'default';
      if (kind === 'Namespace') namespaces.set(name, { metadata: { name, labels: o.metadata?.labels ?? {} } });
      else if (kind === 'NetworkPolicy') policies.push({ metadata: { name, namespace: ns }, spec: (o.spec ?? {}) as NetworkPolicyLike['spec'] });
      else if (kind === 'Pod') addPod({ metadata: { name, namespace: ns, labels: o.metadata?.labels ?? {} }, spec: (o.spec ?? {}) as PodLike['spec'], status: (o as { status?: PodLike['status'] }).status });
      else if (kind in TEMPLATE_PATHS) {
        const pod = podFromTemplate({ ...o, metadata: { ...o.metadata, namespace: ns } }, TEMPLATE_PATHS[kind]);
        if (pod) addPod(pod, `${kind} ${name}`);
      } else if (kind === 'ConfigMap' && o.metadata?.labels?.[INTENTS_LABEL] === 'true') {
        const parsed = parseIntents(o.data?.[INTENTS_KEY] ?? '');
        const source = `${file} (ConfigMap ${ns}/${name})`;
        for (const e of parsed.errors) errors.push(`${source}: ${e}`);
        if (!parsed.errors.length) intents.push({ source, intents: parsed.intents });
      }
    }
  }
  // Namespaces named only by the objects in them still exist (with the label every namespace carries).
  for (const x of [...pods, ...policies]) {
    const ns = x.metadata.namespace ?? 'default';
    if (!namespaces.has(ns)) namespaces.set(ns, { metadata: { name: ns, labels: {} } });
  }
  for (const n of namespaces.values()) n.metadata.labels = { 'kubernetes.io/metadata.name': n.metadata.name!, ...n.metadata.labels };
  return { input: { namespaces: [...namespaces.values()], pods, policies, nodes: [] }, origins, intents, errors, files: files.length };
}

/** An intents file: the plain `intents:` document, or a ConfigMap (or List of them) holding it under `intents.yaml`. */
export function readIntentsFile(file: string): { intents: IntentSource[]; errors: string[] } {
  const errors: string[] = [];
  const objects = readObjects(file, errors);
  const out: IntentSource[] = [];
  for (const o of objects) {
    if (o.kind === 'ConfigMap') {
      const parsed = parseIntents(o.data?.[INTENTS_KEY] ?? '');
      const source = `${file} (ConfigMap ${o.metadata?.namespace ?? 'default'}/${o.metadata?.name ?? ''})`;
      errors.push(...parsed.errors.map((e) => `${source}: ${e}`));
      out.push({ source, intents: parsed.intents });
    } else {
      const parsed = parseIntents(readFileSync(file, 'utf8'));
      errors.push(...parsed.errors.map((e) => `${file}: ${e}`));
      out.push({ source: file, intents: parsed.intents });
      break; // the whole file was one intents document
    }
  }
  return { intents: out, errors };
}
