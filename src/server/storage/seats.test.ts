import { expect, it } from 'vitest';
import { Seats } from './seats.ts';

it('seats up to the limit at once; a freed seat goes to the high level first, then in arrival order', async () => {
  const seats = new Seats(2);
  expect(await seats.take(false, 1000)).toBe(true);
  expect(await seats.take(false, 1000)).toBe(true);
  const order: string[] = [];
  const wait = (name: string, high: boolean) => seats.take(high, 1000).then((ok) => void order.push(`${name}:${ok}`));
  const all = [wait('low-1', false), wait('low-2', false), wait('high-1', true), wait('high-2', true)];
  expect(seats.queued).toBe(4);
  for (let i = 0; i < 4; i++) seats.release();
  await Promise.all(all);
  expect(order).toEqual(['high-1:true', 'high-2:true', 'low-1:true', 'low-2:true']);
  expect(seats.inFlight).toBe(2);
  seats.release();
  seats.release();
  expect(seats.inFlight).toBe(0);
});

it('a write that waits past its deadline gets no seat, and leaves the queue', async () => {
  const seats = new Seats(1);
  expect(await seats.take(false, 1000)).toBe(true);
  expect(await seats.take(true, 20)).toBe(false);
  expect(seats.queued).toBe(0);
  const later = seats.take(false, 1000);
  seats.release();
  expect(await later).toBe(true);
  expect(seats.inFlight).toBe(1);
});
