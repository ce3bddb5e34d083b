// Fault tests in the suite (short runs; `npm run bench -- faults` runs them
// long): SIGKILLs under concurrent writers lose no acknowledged write, never
// reuse a resourceVersion and a resumed watch misses nothing; 50 clients doing
// read-modify-write on one object lose no update.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './testing.ts';
import { crashUnderWriters, readModifyWrite } from './faults.ts';

describe('SIGKILL under concurrent writers', () => {
  it('loses no acknowledged write over 10 kills, resourceVersions only grow, the resumed watch misses nothing', async () => {
    const r = await crashUnderWriters({ kills: 10, writers: 6, roundMs: 400 });
    expect(r.acknowledged).toBeGreaterThan(10);
    expect(r.lost).toEqual([]);
    expect(r.reused).toEqual([]);
    expect(r.missedByWatch).toEqual([]);
    expect(r.outOfOrder).toBe(0);
  }, 300_000);
});

describe('read-modify-write', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.stop();
  });

  it('50 clients updating one object with their resourceVersion lose no update', async () => {
    const r = await readModifyWrite(s.url, s.adminHeaders, { clients: 50, updatesEach: 4 });
    expect(r.final).toBe(200);
    // They did race: some PUTs carried a stale resourceVersion and were refused.
    expect(r.conflicts).toBeGreaterThan(0);
  }, 60_000);
});
