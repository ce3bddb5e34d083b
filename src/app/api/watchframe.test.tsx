// @vitest-environment jsdom
// The watches of all lists flush together, once per animation frame, in one
// React Query batch: a view of several lists renders once per frame, not once
// per list, and still applies events while the tab is hidden (no frames).
// The tests hold the browser's frame clock (frames run when they say) and
// record what the watch streams received from the real server.
import { describe, expect, it, vi } from 'vitest';
import { useRef } from 'react';
import { render, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { nodeKind } from '../../kinds/node.ts';
import { namespaceKind } from '../../kinds/namespace.ts';
import type { TestServer } from '../../server/testing.ts';
import { connectToTestServer, recordWatches } from './testserver.ts';
import { stopAllWatches, useList } from './hooks.ts';

let s: TestServer;

connectToTestServer({}, (started) => (s = started));

/** Frames run only when the test runs one; all callbacks asked for by then run in it, as in a browser. */
function holdFrames() {
  let asked = new Map<number, FrameRequestCallback>();
  let next = 0;
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => (asked.set(++next, cb), next));
  vi.stubGlobal('cancelAnimationFrame', (id: number) => asked.delete(id));
  return () => {
    const callbacks = [...asked.values()];
    asked = new Map();
    const now = performance.now();
    for (const cb of callbacks) cb(now);
    return callbacks.length;
  };
}

/** Puts the tab in the background (or back), as the browser tells a page. */
function setHidden(hidden: boolean) {
  if (hidden) {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
  } else {
    delete (document as { hidden?: boolean }).hidden;
    delete (document as { visibilityState?: string }).visibilityState;
  }
  document.dispatchEvent(new Event('visibilitychange'));
}

const framedNode = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
const framedNamespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

/**
 * A view of the nodes and the namespaces (each render's items recorded, counted with a ref),
 * both lists listed and watched, the frame clock held; then a node and a namespace created
 * at once, both events in the app and not yet applied.
 */
async function bothWritten(node: string, namespace: string) {
  const runFrame = holdFrames();
  const watches = recordWatches();
  const seen: string[][] = [];
  function Both() {
    const renders = useRef(0);
    renders.current++;
    const nodes = useList(nodeKind).items.map((o) => `node/${o.metadata.name}`);
    const namespaces = useList(namespaceKind).items.map((o) => `namespace/${o.metadata.name}`);
    seen[renders.current - 1] = [...nodes, ...namespaces];
    return <p>{renders.current}</p>;
  }
  const qc = new QueryClient();
  const view = render(
    <QueryClientProvider client={qc}>
      <Both />
    </QueryClientProvider>,
  );
  const done = () => {
    // Frames still asked for run before the real clock is back, so none is left waiting on the held one.
    runFrame();
    view.unmount();
    stopAllWatches(qc);
    vi.unstubAllGlobals();
  };
  try {
    // Listed, and both watches running (frames run meanwhile, so nothing waits on them).
    await waitFor(() => {
      runFrame();
      expect([...watches.keys()].sort()).toEqual(['/api/v1/namespaces', '/api/v1/nodes']);
      expect(seen.at(-1)).toContain('namespace/default');
    });
    runFrame();
    const before = seen.length;
    const from = new Map(watches);
    const arrived = (path: string, name: string) => watches.get(path)!.slice(from.get(path)!.length).includes(`"name":"${name}"`);
    await Promise.all([s.api('/api/v1/nodes', { method: 'POST', body: framedNode(node) }), s.api('/api/v1/namespaces', { method: 'POST', body: framedNamespace(namespace) })]);
    await waitFor(() => expect(arrived('/api/v1/nodes', node) && arrived('/api/v1/namespaces', namespace)).toBe(true));
    expect(seen.length).toBe(before);
    /** The renders since the writes, once one shows both. */
    const rendersShowingBoth = async () => {
      const both = [`node/${node}`, `namespace/${namespace}`];
      await waitFor(() => expect(seen.at(-1)).toEqual(expect.arrayContaining(both)));
      const after = seen.slice(before);
      expect(after[0]).toEqual(expect.arrayContaining(both));
      return after.length;
    };
    return { runFrame, rendersShowingBoth, done, seen };
  } catch (e) {
    done();
    throw e;
  }
}

describe('the watches of all lists flush together', () => {
  it('writes to two kinds in the same instant render a view of both lists once, showing both', async () => {
    const { runFrame, rendersShowingBoth, done } = await bothWritten('framed-node', 'framed-ns');
    try {
      runFrame();
      expect(await rendersShowingBoth()).toBe(1);
    } finally {
      done();
    }
  });

  it("a frame's events are in the view within that frame: it renders before any timer runs", async () => {
    const { runFrame, done, seen } = await bothWritten('now-node', 'now-ns');
    try {
      runFrame();
      // Microtasks only (React renders in one after the frame callback): no timer can run meanwhile.
      for (let i = 0; i < 5; i++) await new Promise<void>((r) => queueMicrotask(r));
      expect(seen.at(-1)).toEqual(expect.arrayContaining(['node/now-node', 'namespace/now-ns']));
    } finally {
      done();
    }
  });

  it('a tab hidden before its frame came still applies the events of both lists, in one render', async () => {
    const { rendersShowingBoth, done } = await bothWritten('hidden-node', 'hidden-ns');
    try {
      // A hidden tab gets no frames (none is run here): the events apply all the same.
      setHidden(true);
      expect(await rendersShowingBoth()).toBe(1);
    } finally {
      setHidden(false);
      done();
    }
  });
});
