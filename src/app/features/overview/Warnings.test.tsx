// @vitest-environment jsdom
// The Overview's warnings: the Warning events alone (the server selects them),
// by reason, the reason on most objects first, each linking to the Events page
// chosen to it, and kept live as warnings come. Against the real server.
import { beforeAll, expect, it } from 'vitest';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { TestServer } from '../../../server/testing.ts';
import { connectToTestServer } from '../../api/testserver.ts';
import { Warnings } from './Warnings.tsx';

let s: TestServer;
connectToTestServer({ controllers: false }, (started) => (s = started));

const EVENTS = '/api/v1/namespaces/default/events';
const at = (second: number) => `2026-12-01T10:00:${String(second).padStart(2, '0')}Z`;
const event = (name: string, reason: string, object: { kind: string; name: string }, second: number, type = 'Warning', count = 1) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  involvedObject: { ...object, namespace: object.kind === 'Node' ? undefined : 'default' },
  reason,
  message: `${reason} on ${object.name} (${name})`,
  type,
  count,
  firstTimestamp: at(second),
  lastTimestamp: at(second),
  source: { component: 'test' },
});
const post = async (e: object) => expect((await s.api(EVENTS, { method: 'POST', body: e })).status).toBe(201);

beforeAll(async () => {
  // BackOff on one pod, six times (the last event a repeat of three); Failed on two pods and a node
  // (fewer times, more objects); a Normal event the panel never reads.
  for (const [i, name] of ['w0', 'w1', 'w1b'].entries()) await post(event(name, 'BackOff', { kind: 'Pod', name: 'p1' }, i));
  await post(event('w2', 'BackOff', { kind: 'Pod', name: 'p1' }, 3, 'Warning', 3));
  await post(event('w3', 'Failed', { kind: 'Pod', name: 'p1' }, 3));
  await post(event('w4', 'Failed', { kind: 'Pod', name: 'p2' }, 4));
  await post(event('w5', 'Failed', { kind: 'Node', name: 'n1' }, 5));
  await post(event('n1', 'Pulled', { kind: 'Pod', name: 'p3' }, 6, 'Normal'));
});

const rows = () =>
  screen.queryAllByRole('row').map((r) => {
    const cells = within(r).getAllByRole('cell');
    return `${cells[0].textContent} | ${cells[1].textContent} | ${cells[2].textContent}`;
  });

it('lists the warnings by reason, the reason on most objects first, linked to the Events page, and keeps them live', async () => {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Warnings />
    </QueryClientProvider>,
  );
  await waitFor(() => expect(rows()).toEqual(['Failed | 3 times on 2 Pods, 1 Node | Failed on n1 (w5)', 'BackOff | 6 times on 1 Pod | BackOff on p1 (w2)']), { timeout: 10_000 });
  expect(screen.getByRole('link', { name: 'Failed' }).getAttribute('href')).toBe('/events?type=Warning&reason=Failed');
  expect(screen.getByRole('region', { name: 'Warning events' }).querySelector('h2 .badge')?.textContent).toBe('7');

  // BackOff on three more pods: now on the most objects, it comes first.
  await act(async () => {
    for (const [i, pod] of ['p4', 'p5', 'p6'].entries()) await post(event(`w${6 + i}`, 'BackOff', { kind: 'Pod', name: pod }, 10 + i));
  });
  await waitFor(() => expect(rows()[0]).toBe('BackOff | 9 times on 4 Pods | BackOff on p6 (w8)'));
  // A Normal event is not among them.
  await act(async () => void (await post(event('n2', 'Started', { kind: 'Pod', name: 'p7' }, 20, 'Normal'))));
  await act(async () => void (await post(event('w9', 'Evicted', { kind: 'Pod', name: 'p8' }, 21))));
  await waitFor(() => expect(rows()).toHaveLength(3));
  expect(rows().some((r) => r.startsWith('Started'))).toBe(false);
}, 30_000);
