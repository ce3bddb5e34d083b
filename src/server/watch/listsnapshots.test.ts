// How long the lists of paged LISTs are kept (listsnapshots.ts): while their
// client keeps paging, and no more of them than the bound.
import { expect, it } from 'vitest';
import type { CachedObject } from './cache.ts';
import { ListSnapshots } from './listsnapshots.ts';

const list = (n: number): CachedObject[] => [{ key: `/registry/core/nodes/n${n}`, object: { metadata: { name: `n${n}` } }, revision: n }];

it('keeps a list while it is paged through, and drops it once unused for 75 s', () => {
  let now = 0;
  const s = new ListSnapshots(() => now);
  const l = list(1);
  s.keep('/registry/core/nodes/', 7, l);
  now += 70_000;
  expect(s.at('/registry/core/nodes/', 7)).toBe(l);
  now += 70_000; // 140 s after it was made, 70 s after its last page
  expect(s.at('/registry/core/nodes/', 7)).toBe(l);
  expect(s.at('/registry/core/nodes/', 8)).toBeUndefined();
  expect(s.at('/registry/core/pods/', 7)).toBeUndefined();
  now += 76_000;
  expect(s.at('/registry/core/nodes/', 7)).toBeUndefined();
  expect(s.size).toBe(0);
});

it('keeps at most eight, dropping the one unused longest', () => {
  let now = 0;
  const s = new ListSnapshots(() => now);
  for (let rev = 1; rev <= 8; rev++) s.keep('/registry/core/pods/', rev, list(rev));
  s.at('/registry/core/pods/', 1); // in use: not the one to go
  s.keep('/registry/core/pods/', 9, list(9));
  expect(s.size).toBe(8);
  expect(s.at('/registry/core/pods/', 1)).toBeDefined();
  expect(s.at('/registry/core/pods/', 2)).toBeUndefined();
  expect(s.at('/registry/core/pods/', 9)).toBeDefined();
});
