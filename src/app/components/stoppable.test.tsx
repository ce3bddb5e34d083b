// @vitest-environment jsdom
// Work a dialog can stop ends with its Stop, and ends too when its page is left.
import { expect, it } from 'vitest';
import { renderHook } from '@testing-library/react';
import { useStoppable } from './common.tsx';

it('stops the last run on Stop, and the running one when the page is left', () => {
  const { result, unmount } = renderHook(() => useStoppable());
  const first = result.current.start();
  result.current.stop();
  expect(first.aborted).toBe(true);
  const second = result.current.start();
  expect(second.aborted).toBe(false);
  unmount();
  expect(second.aborted).toBe(true);
});
