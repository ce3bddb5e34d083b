// @vitest-environment jsdom
// The Events page's count line: of those kept, and of all there are when it keeps only the newest.
import { describe, expect, it } from 'vitest';
import { eventsCount } from './EventsPage.tsx';

describe('eventsCount', () => {
  it('says how many show of those kept, and of all there are when only the newest are kept', () => {
    expect(eventsCount(7, 7, undefined)).toBe('7 of 7');
    expect(eventsCount(3, 7, 7)).toBe('3 of 7');
    expect(eventsCount(22900, 22900, 91841)).toBe('the newest 22900 of 91841');
    expect(eventsCount(12, 22900, 91841)).toBe('12 of the newest 22900 (91841 in all)');
  });
});
