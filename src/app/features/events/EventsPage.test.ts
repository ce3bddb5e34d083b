// @vitest-environment jsdom
// The Events page's count line: of those kept, of all there are when it keeps only the newest, and of those read while it reads.
import { describe, expect, it } from 'vitest';
import { eventsCount } from './EventsPage.tsx';

describe('eventsCount', () => {
  it('says how many show of those kept, and of all there are when only the newest are kept', () => {
    // All there are (or, for a list the server selects and does not count, all the page holds).
    expect(eventsCount(7, 7, undefined)).toBe('7 events');
    expect(eventsCount(1, 1, undefined)).toBe('1 event');
    expect(eventsCount(2, 7, undefined)).toBe('2 of 7');
    expect(eventsCount(7, 7, 7)).toBe('7 events');
    expect(eventsCount(3, 7, 7)).toBe('3 of 7');
    expect(eventsCount(22900, 22900, 91841)).toBe('the newest 22,900 of 91,841');
    expect(eventsCount(12, 22900, 91841)).toBe('12 of the newest 22,900 (91,841 in all)');
  });
  it('says those kept are the newest so far while the list is read', () => {
    expect(eventsCount(20000, 20000, 637171, 312000)).toBe('the newest 20,000 of 312,000 read so far (637,171 in all)…');
    expect(eventsCount(12, 20000, 637171, 312000)).toBe('12 of the newest 20,000 of 312,000 read so far (637,171 in all)…');
    expect(eventsCount(500, 500, 91841, 500)).toBe('500 of 500 read so far (91,841 in all)…');
    // A selected list (no total) while it is read.
    expect(eventsCount(4000, 4000, undefined, 4000, true)).toBe('4,000 events read so far…');
    expect(eventsCount(12, 4000, undefined, 4000, true)).toBe('12 of the 4,000 read so far…');
    // Read whole: as before.
    expect(eventsCount(20000, 20000, 637171, 637171)).toBe('the newest 20,000 of 637,171');
  });
});
