// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { sendDelay } from './client.ts';

describe('sendDelay', () => {
  it('leaves the worker idle twice as long as its last recomputation took, between 150 ms and a second', () => {
    expect(sendDelay(0, false)).toBe(150);
    expect(sendDelay(40, false)).toBe(150);
    expect(sendDelay(300, false)).toBe(600);
    expect(sendDelay(1200, false)).toBe(1000);
  });

  it('sends a policy or namespace change at once, however long the last recomputation took', () => {
    expect(sendDelay(1200, true)).toBe(150);
  });
});
