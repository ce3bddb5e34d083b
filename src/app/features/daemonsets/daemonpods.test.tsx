// @vitest-environment jsdom
// The DaemonSet page reads its own pods only: listed and watched with the
// DaemonSet's selector as a labelSelector, so the events of the namespace's
// other pods (ten DaemonSets on 5000 nodes are 50,000 pods) never reach the
// browser. Against the real server; the watch stream's text is recorded as
// it arrives.
import { describe, expect, it, vi } from 'vitest';
import { render, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { KubeObject } from '../../../kinds/kind.ts';
import { podKind } from '../../../kinds/pod.ts';
import type { TestServer } from '../../../server/testing.ts';
import { connectToTestServer, recordWatches } from '../../api/testserver.ts';
import { stopAllWatches, useList } from '../../api/hooks.ts';
import { podSelectorOf } from './lists.ts';

let s: TestServer;

connectToTestServer({}, (started) => (s = started));

const NS = 'agents';
const ds = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: NS, uid: 'ds-uid' },
  spec: { selector: { matchLabels: { app: 'agent' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['node', 'edge'] }] } },
} as unknown as KubeObject;
const pod = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels }, spec: { containers: [{ name: 'c', image: 'agent:1' }] } });

describe("the DaemonSet page's pods", () => {
  it("are the DaemonSet's selector as a labelSelector; one that selects everything reads the namespace", () => {
    expect(podSelectorOf(ds)).toBe('app=agent,tier in (edge,node)');
    expect(podSelectorOf({ ...ds, spec: { selector: {} } } as KubeObject)).toBeUndefined();
    expect(podSelectorOf({ ...ds, spec: {} } as KubeObject)).toBeUndefined();
  });

  it("are listed and watched by its selector: the other pods' events never arrive", async () => {
    await s.api('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
    for (const [name, labels] of [
      ['agent-1', { app: 'agent', tier: 'node' }],
      ['other-1', { app: 'other', tier: 'node' }],
      ['agent-web', { app: 'agent', tier: 'web' }],
    ] as const)
      await s.api(`/api/v1/namespaces/${NS}/pods`, { method: 'POST', body: pod(name, labels) });
    const watches = recordWatches((url) => `${url.pathname}?labelSelector=${url.searchParams.get('labelSelector') ?? ''}`);
    const seen: string[][] = [];
    function Pods() {
      const { items } = useList(podKind, NS, { labelSelector: podSelectorOf(ds) });
      seen.push(items.map((p) => p.metadata.name!).sort());
      return null;
    }
    const qc = new QueryClient();
    const view = render(
      <QueryClientProvider client={qc}>
        <Pods />
      </QueryClientProvider>,
    );
    const key = `/api/v1/namespaces/${NS}/pods?labelSelector=app=agent,tier in (edge,node)`;
    try {
      await waitFor(() => expect(watches.has(key)).toBe(true));
      expect(seen.at(-1)).toEqual(['agent-1']);
      // Another pod of the namespace made and changed, then one of the DaemonSet's: the stream is in
      // order, so had the other's events been sent, they would have come before the DaemonSet's pod.
      await s.api(`/api/v1/namespaces/${NS}/pods`, { method: 'POST', body: pod('other-2', { app: 'other', tier: 'node' }) });
      await s.api(`/api/v1/namespaces/${NS}/pods/other-1`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { labels: { touched: 'yes' } } } });
      await s.api(`/api/v1/namespaces/${NS}/pods`, { method: 'POST', body: pod('agent-2', { app: 'agent', tier: 'edge' }) });
      await waitFor(() => expect(seen.at(-1)).toEqual(['agent-1', 'agent-2']));
      expect(watches.get(key)).toContain('"name":"agent-2"');
      expect(watches.get(key)).not.toContain('other-');
      expect([...watches.keys()]).toEqual([key]);
    } finally {
      view.unmount();
      stopAllWatches(qc);
      vi.unstubAllGlobals();
    }
  });
});
