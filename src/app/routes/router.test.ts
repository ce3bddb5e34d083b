// @vitest-environment jsdom
// withSearch keeps the namespace chosen on a link, after the link's own query.
import { afterEach, expect, it } from 'vitest';
import { withSearch } from './router.tsx';

afterEach(() => window.history.replaceState(null, '', '/'));

it('adds the namespace chosen to a path, and to a path with a query of its own', () => {
  window.history.replaceState(null, '', '/?ns=shop&q=web');
  expect(withSearch('/nodes')).toBe('/nodes?ns=shop');
  expect(withSearch('/events?type=Warning&reason=Failed')).toBe('/events?type=Warning&reason=Failed&ns=shop');
  // The link's own namespace wins.
  expect(withSearch('/events?ns=data')).toBe('/events?ns=data');
  window.history.replaceState(null, '', '/');
  expect(withSearch('/events?type=Warning')).toBe('/events?type=Warning');
  expect(withSearch('/nodes')).toBe('/nodes');
});
