import { describe, expect, it } from 'vitest';
import { FirstPages } from './firstpages.ts';

const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 20));
  return done;
};

describe('FirstPages', () => {
  it('lets requests through at once when no first page is being read', async () => {
    expect(await settled(new FirstPages().idle())).toBe(true);
  });

  it('holds requests until every first page has arrived', async () => {
    const g = new FirstPages();
    const a = g.start();
    const b = g.start();
    const waiting = g.idle(10_000);
    a();
    a(); // ending twice counts once
    expect(await settled(waiting)).toBe(false);
    b();
    expect(await settled(waiting)).toBe(true);
  });

  it('sees a list started later in the same task as the request', async () => {
    const g = new FirstPages();
    const waiting = g.idle(10_000);
    const end = g.start();
    expect(await settled(waiting)).toBe(false);
    end();
    expect(await settled(waiting)).toBe(true);
  });

  it('stops waiting after the longest wait', async () => {
    const g = new FirstPages();
    g.start();
    expect(await settled(g.idle(5))).toBe(true);
  });
});
