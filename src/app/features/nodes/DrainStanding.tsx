// How a drain stands, for one node (its page) or many (the Nodes list): pods
// evicted, evictions refused for now and asked again, pods still terminating.
import { plural, someOf } from '../../../lib/words.ts';
import type { DrainProgress } from './drain.ts';

/** Refusals named before "and N others". */
const NAMED = 5;

export function DrainStanding({ progress }: { progress: Pick<DrainProgress, 'evicted' | 'terminating' | 'refused'> }) {
  const { evicted, terminating, refused } = progress;
  return (
    <div data-testid="drain-standing">
      <p>
        {plural(evicted.length, 'pod')} evicted
        {terminating.length > 0 && (
          <>
            , {terminating.length} still terminating: <span className="mono">{someOf(terminating)}</span>
          </>
        )}
        .
      </p>
      {refused.length > 0 && (
        <div className="alert warn">
          <p>{plural(refused.length, 'eviction')} refused for now, asked again until taken (a disruption budget allows none at the moment):</p>
          <ul>
            {refused.slice(0, NAMED).map((r) => (
              <li key={r.pod}>
                <span className="mono">{r.pod}</span>: {r.message}
              </li>
            ))}
          </ul>
          {refused.length > NAMED && <p>and {plural(refused.length - NAMED, 'other')}.</p>}
        </div>
      )}
    </div>
  );
}
