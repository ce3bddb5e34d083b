// @vitest-environment jsdom
// A DaemonSet's page: its route reads the rollout's lists (the DaemonSet's own
// pods, the nodes, the revisions) as soon as the DaemonSet is known, and its
// events (by field selector, not the namespace's) only once those are read.
// Against the real server; the app's requests are recorded as they are made.
import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import type { KubeObject } from '../../kinds/kind.ts';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import type { TestServer } from '../../server/testing.ts';
import { connectToTestServer } from '../api/testserver.ts';
import { queryKeys, stopAllWatches, useObject } from '../api/hooks.ts';
import { getConnection } from '../api/connection.ts';
import { rolloutLists } from '../features/daemonsets/lists.ts';
import { EventsSection } from '../features/events/EventsSection.tsx';
import { DetailLists } from './detaillists.tsx';

let s: TestServer;

connectToTestServer({}, (started) => (s = started));

const NS = 'agents';

describe("a detail page's lists", () => {
  it('are read from the object as its route starts; the Events section waits for them', async () => {
    await s.api('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
    const ds = (
      await s.api(`/apis/apps/v1/namespaces/${NS}/daemonsets`, {
        method: 'POST',
        body: {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: 'agent' },
          spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'agent:1' }] } } },
        },
      })
    ).body as KubeObject;
    await s.api(`/api/v1/namespaces/${NS}/events`, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'agent.1' }, involvedObject: { kind: 'DaemonSet', namespace: NS, name: 'agent', uid: ds.metadata.uid }, reason: 'Checked', message: 'looked at by the test', type: 'Normal' },
    });
    // The namespace's other events (here a pod's of the same name) are not the page's to read.
    await s.api(`/api/v1/namespaces/${NS}/events`, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'agent.2' }, involvedObject: { kind: 'Pod', namespace: NS, name: 'agent' }, reason: 'Other', message: 'about a pod', type: 'Normal' },
    });

    // Each list the app reads, in the order asked, and what had been asked when the lists were read.
    const lists: string[] = [];
    const answers: string[] = [];
    const native = globalThis.fetch;
    vi.stubGlobal('WebSocket', undefined);
    vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const selectors = ['labelSelector', 'fieldSelector'].filter((p) => url.searchParams.has(p)).map((p) => `${p}=${url.searchParams.get(p)}`);
      if (!url.searchParams.has('watch')) lists.push(`${url.pathname}${selectors.length ? `?${selectors.join('&')}` : ''}`);
      const answer = await native(input, init);
      if (url.pathname.endsWith('/events') && !url.searchParams.has('watch')) answers.push(await answer.clone().text());
      return answer;
    });
    let askedWhenSettled: string[] | undefined;
    function Page() {
      const [settled, setSettled] = useState(false);
      return (
        <>
          {!settled && (
            <DetailLists
              kind={daemonSetKind}
              namespace={NS}
              name="agent"
              lists={rolloutLists}
              onSettled={() => {
                askedWhenSettled = lists.slice();
                setSettled(true);
              }}
            />
          )}
          <EventsSection kind={daemonSetKind} object={ds} after={!settled} />
        </>
      );
    }
    const qc = new QueryClient();
    const view = render(
      <QueryClientProvider client={qc}>
        <Page />
      </QueryClientProvider>,
    );
    try {
      await waitFor(() => expect(askedWhenSettled).toBeDefined());
      expect(askedWhenSettled).toEqual([`/apis/apps/v1/namespaces/${NS}/daemonsets?fieldSelector=metadata.name=agent`, `/api/v1/namespaces/${NS}/pods?labelSelector=app=agent`, '/api/v1/nodes', `/apis/apps/v1/namespaces/${NS}/controllerrevisions`]);
      await waitFor(() => expect(screen.getByRole('region', { name: 'Events' }).textContent).toContain('looked at by the test'));
      expect(lists.slice(askedWhenSettled!.length)).toEqual([`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.kind=DaemonSet,involvedObject.name=agent`]);
      expect(answers.join()).toContain('looked at by the test');
      expect(answers.join()).not.toContain('about a pod');
    } finally {
      view.unmount();
      stopAllWatches(qc);
      vi.unstubAllGlobals();
    }
  });

  it("read an object from its kind's whole list when one is cached, else alone by name", async () => {
    const asked: string[] = [];
    const native = globalThis.fetch;
    vi.stubGlobal('WebSocket', undefined);
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (!url.searchParams.has('watch') && url.pathname.endsWith('/daemonsets')) asked.push(url.searchParams.get('fieldSelector') ?? '');
      return native(input, init);
    });
    function Shown() {
      const { object } = useObject(daemonSetKind, NS, 'agent');
      return <p data-testid="shown">{object?.metadata.name ?? '-'}</p>;
    }
    const qc = new QueryClient();
    try {
      // Nothing cached: the object alone.
      let view = render(
        <QueryClientProvider client={qc}>
          <Shown />
        </QueryClientProvider>,
      );
      await waitFor(() => expect(screen.getByTestId('shown').textContent).toBe('agent'));
      expect(asked).toEqual(['metadata.name=agent']);
      view.unmount();
      // The namespace's list cached (its list page was open): read from it, nothing asked.
      qc.setQueryData(queryKeys.list(getConnection(), daemonSetKind, NS), { items: [(await s.api(`/apis/apps/v1/namespaces/${NS}/daemonsets/agent`)).body], resourceVersion: '1' });
      asked.length = 0;
      view = render(
        <QueryClientProvider client={qc}>
          <Shown />
        </QueryClientProvider>,
      );
      await waitFor(() => expect(screen.getByTestId('shown').textContent).toBe('agent'));
      expect(asked).toEqual([]);
      view.unmount();
    } finally {
      stopAllWatches(qc);
      vi.unstubAllGlobals();
    }
  });
});
