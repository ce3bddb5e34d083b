// Intents as the cluster stores them: ConfigMaps labelled
// kube-workbench.io/intents=true, each holding an intents.yaml document.
// Read through the watch-driven ConfigMap list; written with a plain
// create or replace of the ConfigMap (conflicts come back as the server's 409).
import { useMemo } from 'react';
import { z } from 'zod';
import type { KubeObject } from '../../../kinds/kind.ts';
import { configMapKind } from '../../../kinds/configmap.ts';
import { INTENTS_KEY, INTENTS_LABEL, intentsDocumentSchema, parseIntents, type Intent } from '../../../lib/reachability/index.ts';
import { parseSelector, type LabelSelector } from '../../../lib/labels.ts';
import { toYaml } from '../../../lib/yaml.ts';
import { api, type Connection } from '../../api/client.ts';
import { useList } from '../../api/hooks.ts';
import type { LiveIntent } from './compute.ts';

/** Where the app puts intents when no ConfigMap holds any yet. */
export const DEFAULT_STORE = { namespace: 'default', name: 'reachability-intents' };

export interface IntentStore {
  /** "namespace/name" of the ConfigMap. */
  source: string;
  object: KubeObject;
  text: string;
  intents: Intent[];
  errors: string[];
}

const dataOf = (o: KubeObject) => ((o as { data?: Record<string, string> }).data ?? {});

export function useLiveIntents() {
  const list = useList(configMapKind);
  return useMemo(() => {
    const stores: IntentStore[] = list.items
      .filter((o) => o.metadata.labels?.[INTENTS_LABEL] === 'true')
      .map((object) => {
        const text = dataOf(object)[INTENTS_KEY] ?? '';
        return { source: `${object.metadata.namespace}/${object.metadata.name}`, object, text, ...parseIntents(text) };
      });
    const intents: LiveIntent[] = stores.flatMap((s) => s.intents.map((intent) => ({ source: s.source, intent })));
    return { stores, intents, key: JSON.stringify(intents), loading: list.isPending };
  }, [list.items, list.isPending]);
}

/** Writes an intents document: replaces the store's ConfigMap, or creates the default one. */
export async function saveIntents(conn: Connection, store: IntentStore | undefined, text: string): Promise<void> {
  if (store) {
    const o = store.object as KubeObject & { data?: Record<string, string> };
    await api.replace(conn, configMapKind, { ...o, data: { ...o.data, [INTENTS_KEY]: text } } as KubeObject);
    return;
  }
  await api.create(conn, configMapKind, {
    metadata: { name: DEFAULT_STORE.name, namespace: DEFAULT_STORE.namespace, labels: { [INTENTS_LABEL]: 'true' } },
    data: { [INTENTS_KEY]: text },
  } as KubeObject);
}

/** The document with one intent added (or replaced, by name). */
export function withIntent(text: string, intent: Intent): string {
  const current = parseIntents(text).intents.filter((i) => i.name !== intent.name);
  return toYaml({ intents: [...current, intent] });
}

export function withoutIntent(text: string, name: string): string {
  return toYaml({ intents: parseIntents(text).intents.filter((i) => i.name !== name) });
}

const OPS: Record<string, 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'> = { '=': 'In', '==': 'In', in: 'In', '!=': 'NotIn', notin: 'NotIn', exists: 'Exists', '!': 'DoesNotExist' };

/** A selector written as kubectl's -l text ("app=web,tier in (a,b)"); empty text: undefined (everything). */
export function selectorFromText(text: string): LabelSelector | undefined {
  if (!text.trim()) return undefined;
  const reqs = parseSelector(text);
  const matchLabels: Record<string, string> = {};
  const matchExpressions: NonNullable<LabelSelector['matchExpressions']> = [];
  for (const r of reqs) {
    const op = OPS[r.operator];
    if (!op) throw new Error(`"${r.operator}" cannot be said in a label selector`);
    if (op === 'In' && r.values.length === 1 && !(r.key in matchLabels)) matchLabels[r.key] = r.values[0];
    else matchExpressions.push(op === 'In' || op === 'NotIn' ? { key: r.key, operator: op, values: [...r.values] } : { key: r.key, operator: op });
  }
  return { ...(Object.keys(matchLabels).length ? { matchLabels } : {}), ...(matchExpressions.length ? { matchExpressions } : {}) };
}

let schema: object | undefined;
/** JSON Schema of the intents document, for completion and checks in the YAML editor. */
export function intentsJSONSchema(): object {
  return (schema ??= z.toJSONSchema(intentsDocumentSchema, { io: 'input', unrepresentable: 'any' }));
}
