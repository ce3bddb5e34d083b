// A detail page's lists, started by its route: a page such as a DaemonSet's
// reads lists besides its object's (the rollout: its pods, the nodes, its
// revisions), and its own code comes in chunks loaded on the first visit
// (views.tsx, `later`). Started here, from the route, they are on their way
// as soon as the object is known instead of once those chunks have loaded.
import { useEffect, useRef, useState } from 'react';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { useList, useObject, type ListRef } from '../api/hooks.ts';

/** A list's identity (its kind, namespace and selectors). */
export const listId = (l: ListRef) => JSON.stringify([l.kind.group, l.kind.plural, l.namespace ?? '', l.selection?.labelSelector ?? '', l.selection?.fieldSelector ?? '']);

/**
 * Reads the object's list and then `lists(object)`; calls `onSettled` once each has been read
 * whole or has failed (also when there is no such object). Renders nothing.
 */
export function DetailLists({ kind, namespace, name, lists, onSettled }: { kind: KindDefinition; namespace?: string; name: string; lists: (o: KubeObject) => ListRef[]; onSettled: () => void }) {
  const { object, isError, whole } = useObject(kind, namespace, name);
  const refs = object ? lists(object) : [];
  const settled = useRef(new Set<string>());
  const [, setCount] = useState(0);
  const objectSettled = isError || whole;
  const all = objectSettled && (!object || refs.every((r) => settled.current.has(listId(r))));
  useEffect(() => {
    if (all) onSettled();
  }, [all, onSettled]);
  return refs.map((r) => (
    <ReadList
      key={listId(r)}
      list={r}
      onSettled={() => {
        settled.current.add(listId(r));
        setCount((c) => c + 1);
      }}
    />
  ));
}

/** Reads one list (its watch too, while mounted); tells once it is read whole or failed. */
function ReadList({ list, onSettled }: { list: ListRef; onSettled: () => void }) {
  const l = useList(list.kind, list.namespace, list.selection);
  const settled = l.isError || l.whole;
  const told = useRef(false);
  useEffect(() => {
    if (!settled || told.current) return;
    told.current = true;
    onSettled();
  });
  return null;
}
