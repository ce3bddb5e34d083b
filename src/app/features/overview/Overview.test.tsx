// @vitest-environment jsdom
// The Overview while a list of several pages is still coming: its counts are
// of the nodes listed so far and say so ("100…", "loading; … so far"), never a
// bare number that is only the first page's; complete, the whole count.
// Against the real server.
import { beforeAll, expect, it } from 'vitest';
import { render, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { TestServer } from '../../../server/testing.ts';
import { connectToTestServer } from '../../api/testserver.ts';
import { FIRST_PAGE } from '../../api/hooks.ts';
import { Overview } from './Overview.tsx';

const NODES = 620;
let s: TestServer;

connectToTestServer({ controllers: false }, (started) => (s = started));
beforeAll(async () => {
  for (let i = 0; i < NODES; i += 40) {
    await Promise.all(
      Array.from({ length: Math.min(40, NODES - i) }, (_, j) =>
        s.api('/api/v1/nodes', {
          method: 'POST',
          body: {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name: `n-${String(i + j).padStart(4, '0')}` },
          },
        }),
      ),
    );
  }
}, 120_000);

it('counts the nodes listed so far as so far, and the whole list once it is in', async () => {
  const shown: string[] = [];
  const card = () => [...document.querySelectorAll('.card')].find((c) => c.querySelector('h3')?.textContent === 'Nodes');
  const record = () => {
    const c = card();
    const text = c && `${c.querySelector('.big')?.textContent} | ${c.querySelector('.note')?.textContent}`;
    if (text && text !== shown.at(-1)) shown.push(text);
  };
  const observer = new MutationObserver(record);
  observer.observe(document.body, {
    subtree: true,
    childList: true,
    characterData: true,
  });
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Overview />
    </QueryClientProvider>,
  );
  await waitFor(() => expect(card()?.querySelector('.big')?.textContent).toBe(String(NODES)), { timeout: 20_000 });
  observer.disconnect();
  record();
  // The first page was shown as a part, and no part as a whole.
  expect(shown).toContain(`${FIRST_PAGE}… | loading; ${FIRST_PAGE} not ready · 0 cordoned so far`);
  const counts = shown.map((t) => t.split(' | ')[0]);
  expect(counts.filter((c) => /^\d+$/.test(c))).toEqual([String(NODES)]);
  expect(shown.at(-1)).toBe(`${NODES} | ${NODES} not ready · 0 cordoned`);
}, 60_000);
