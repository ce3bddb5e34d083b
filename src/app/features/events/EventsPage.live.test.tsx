// @vitest-environment jsdom
// The Events page kept from the watch: newest first as events come, change
// and go, with the filters' values and the warnings counted as they do; a
// type chosen is the server's selection. Against the real server.
import { beforeAll, expect, it } from 'vitest';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { TestServer } from '../../../server/testing.ts';
import { connectToTestServer } from '../../api/testserver.ts';
import { EventsPage } from './EventsPage.tsx';

let s: TestServer;
connectToTestServer({ controllers: false }, (started) => (s = started));

const EVENTS = '/api/v1/namespaces/default/events';
const at = (minute: number) => `2026-12-01T10:${String(minute).padStart(2, '0')}:00Z`;
const event = (name: string, reason: string, minute: number, type = 'Normal') => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  involvedObject: { kind: 'Pod', name: `pod-${name}`, namespace: 'default' },
  reason,
  message: `${reason} of ${name}`,
  type,
  count: 1,
  firstTimestamp: at(minute),
  lastTimestamp: at(minute),
  source: { component: 'test' },
});

beforeAll(async () => {
  for (const [name, reason, minute, type] of [['e1', 'Pulled', 1], ['e2', 'Failed', 2, 'Warning'], ['e3', 'Pulled', 3]] as const) {
    expect((await s.api(EVENTS, { method: 'POST', body: event(name, reason, minute, type) })).status).toBe(201);
  }
});

const rows = () => screen.queryAllByRole('row').filter((r) => r.hasAttribute('data-reason')).map((r) => `${r.getAttribute('data-reason')} ${within(r).getAllByRole('cell')[3].textContent}`);
/** A menu's values: those of the list shown, and those seen earlier (its second group, when there is one). */
const menu = (label: string) => {
  const select = screen.getByLabelText(label) as HTMLSelectElement;
  const values = (parent: Element) => [...parent.querySelectorAll('option')].map((o) => o.value).filter(Boolean);
  const groups = [...select.querySelectorAll('optgroup')];
  return groups.length ? { now: values(groups[0]), earlier: values(groups[1]) } : { now: values(select), earlier: [] };
};
const reasons = () => menu('Reason').now;
const countLine = () => document.querySelector('.events-page .page-head .muted')?.textContent ?? '';
const badge = () => document.querySelector('.events-page .page-head .badge')?.textContent ?? '';

it('keeps the events newest first, and the reasons and warnings, as events are added, changed and deleted', async () => {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <EventsPage objectLink={() => undefined} />
    </QueryClientProvider>,
  );
  await waitFor(() => expect(rows()).toEqual(['Pulled Pod/pod-e3', 'Failed Pod/pod-e2', 'Pulled Pod/pod-e1']), { timeout: 10_000 });
  expect(reasons()).toEqual(['Failed', 'Pulled']);
  expect(badge()).toContain('1 warning');

  await act(async () => void (await s.api(EVENTS, { method: 'POST', body: event('e4', 'BackOff', 4, 'Warning') })));
  await waitFor(() => expect(rows()[0]).toBe('BackOff Pod/pod-e4'));
  expect(reasons()).toEqual(['BackOff', 'Failed', 'Pulled']);
  expect(badge()).toContain('2 warnings');

  // The oldest happens again: it moves to the top.
  await act(async () => void (await s.api(`${EVENTS}/e1`, { method: 'PATCH', body: { count: 2, lastTimestamp: at(5) }, headers: { 'Content-Type': 'application/merge-patch+json' } })));
  await waitFor(() => expect(rows()).toEqual(['Pulled Pod/pod-e1', 'BackOff Pod/pod-e4', 'Pulled Pod/pod-e3', 'Failed Pod/pod-e2']));

  // The only Failed event goes, and its reason with it from the list's values (the menu offers it as seen earlier).
  await act(async () => void (await s.api(`${EVENTS}/e2`, { method: 'DELETE' })));
  await waitFor(() => expect(rows()).toEqual(['Pulled Pod/pod-e1', 'BackOff Pod/pod-e4', 'Pulled Pod/pod-e3']));
  expect(menu('Reason')).toEqual({ now: ['BackOff', 'Pulled'], earlier: ['Failed'] });
  expect(badge()).toContain('1 warning');
  expect(countLine()).toBe('3 events across the cluster');

  // Warnings chosen: the server sends those alone (a filter in the page would say "1 of 3"), and the
  // watch brings new warnings and nothing else.
  fireEvent.change(screen.getByLabelText('Type'), { target: { value: 'Warning' } });
  await waitFor(() => expect(rows()).toEqual(['BackOff Pod/pod-e4']));
  expect(countLine()).toBe('1 event across the cluster');
  expect(menu('Reason')).toEqual({ now: ['BackOff'], earlier: ['Failed', 'Pulled'] });
  await act(async () => {
    await s.api(EVENTS, { method: 'POST', body: event('e5', 'Pulled', 6) });
    await s.api(EVENTS, { method: 'POST', body: event('e6', 'Failed', 7, 'Warning') });
  });
  await waitFor(() => expect(rows()).toEqual(['Failed Pod/pod-e6', 'BackOff Pod/pod-e4']));
  expect(countLine()).toBe('2 events across the cluster');

  // A reason seen earlier is offered still; back to any type, every event.
  fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'Failed' } });
  await waitFor(() => expect(rows()).toEqual(['Failed Pod/pod-e6']));
  fireEvent.change(screen.getByLabelText('Type'), { target: { value: '' } });
  fireEvent.change(screen.getByLabelText('Reason'), { target: { value: '' } });
  await waitFor(() => expect(rows()).toEqual(['Failed Pod/pod-e6', 'Pulled Pod/pod-e5', 'Pulled Pod/pod-e1', 'BackOff Pod/pod-e4', 'Pulled Pod/pod-e3']));
}, 30_000);
