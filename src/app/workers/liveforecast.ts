// The live forecast of a DaemonSet's rollout, made off the page's thread: a
// plan of a 5000-node rollout runs the whole rollout twenty times and took
// the main thread up to 1.5 s, during which no watch update reached the DOM.
// The worker keeps its own copy of the lists the plan reads (nodes, the
// DaemonSet's pods, the namespace's revisions, DaemonSets and pod events), taken in
// as the watches change them: a change sends only the objects it added and
// the uids it removed, so nothing re-sends or re-parses a 5000-node list.
// The page asks for a plan (at most every few seconds) and gets the forecast
// back; the plan itself too when the page has none recorded yet.
import type { KubeObject } from '../../kinds/kind.ts';
import { ControllerRevisionHashLabel, controlledBy } from '../../lib/rollout.ts';
import { eventAsPlanned, nodeAsPlanned, podAsPlanned } from '../../lib/planreads.ts';
import { hashOfTemplate, paceFor, planRollout, podAvailableTime, revisionsOfDaemonSet, type ClusterView, type RolloutPlan } from '../../lib/rolloutplan.ts';

/** The lists a plan reads, as ClusterView names them. */
export const FORECAST_LISTS = ['nodes', 'pods', 'revisions', 'daemonSets', 'events'] as const;
export type ForecastList = (typeof FORECAST_LISTS)[number];

export type ForecastRequest =
  /** A list from scratch (the first, or one whose changes were not all seen). */
  | { type: 'reset'; list: ForecastList; items: readonly KubeObject[] }
  /** What changed since: objects added or replaced, and the uids of those removed (a replaced one is in both). */
  | { type: 'change'; list: ForecastList; removed: string[]; added: readonly KubeObject[] }
  /** Plan `ds` now; `withPlan`: send the plan too (to be recorded). */
  | { type: 'plan'; id: number; ds: KubeObject; now: number; withPlan: boolean };

export interface ForecastAnswer {
  id: number;
  /** The revision of the DaemonSet's template (undefined until the controller has written it). */
  hash?: string;
  /** The rollout's start: its revision's creation, epoch ms. */
  start?: number;
  forecast?: { p10: number; p50: number; p90: number; completes: boolean };
  /** The DaemonSet's pods of the new revision available now. */
  done: number;
  plan?: RolloutPlan;
  error?: string;
}

/** Runs of the rollout drawn per plan: 100, fewer past 1000 nodes so that a plan costs about the same at any size. */
export const runsFor = (nodes: number) => Math.max(20, Math.min(100, Math.round(100_000 / Math.max(1, nodes))));

const uidOf = (o: KubeObject) => o.metadata.uid ?? `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * The lists' changes on their way to the worker, gathered between sends: per
 * list, the objects changed by uid (the last state of each; undefined when
 * removed), or the whole list when a state did not follow the one taken in
 * last. `drain` gives the requests that bring the worker's copy up to date.
 */
export class ForecastFeed {
  /** The items each list had when last taken in. */
  private seen = new Map<ForecastList, readonly KubeObject[]>();
  private due = new Map<ForecastList, Map<string, KubeObject | undefined> | 'reset'>();

  /** Takes in a state of a list; true when there is something new to send. */
  take(list: ForecastList, state: { items: readonly KubeObject[]; change?: { from: readonly KubeObject[]; removed: readonly KubeObject[]; added: readonly KubeObject[] } }): boolean {
    if (state.items === this.seen.get(list)) return false;
    const c = state.change;
    const d = this.due.get(list);
    if (d !== 'reset' && c && this.seen.has(list) && c.from === this.seen.get(list)) {
      const changed = d ?? new Map<string, KubeObject | undefined>();
      this.due.set(list, changed);
      for (const o of c.removed) changed.set(uidOf(o), undefined);
      for (const o of c.added) changed.set(uidOf(o), o);
    } else this.due.set(list, 'reset');
    this.seen.set(list, state.items);
    return true;
  }

  drain(): Exclude<ForecastRequest, { type: 'plan' }>[] {
    const out: Exclude<ForecastRequest, { type: 'plan' }>[] = [];
    for (const [list, d] of this.due) {
      if (d === 'reset') {
        out.push({ type: 'reset', list, items: this.seen.get(list)! });
        continue;
      }
      const removed: string[] = [];
      const added: KubeObject[] = [];
      for (const [uid, o] of d) if (o) added.push(o);
      else removed.push(uid);
      out.push({ type: 'change', list, removed, added });
    }
    this.due.clear();
    return out;
  }
}

/** How often the lists' changes are sent to the worker while a forecast is wanted. */
export const FEED_MS = 500;
/** Objects copied into the worker per task: a list sent whole goes in slices, a task each. */
export const FEED_SLICE = 500;

type ListRequest = Exclude<ForecastRequest, { type: 'plan' }>;

/**
 * What each list's objects are cut down to on their way to the worker: the
 * fields a plan reads (planreads.ts). Whole, a 5006-node rollout's start among
 * ten DaemonSets copied 5006 nodes, 5006 pods and the namespace's pod events
 * (70,000): 2.3 s of the page's thread in a 17 s profile, cut 0.8 s. The
 * DaemonSets and their revisions go whole: they are few, and a revision's
 * template is compared whole.
 */
const AS_PLANNED: Partial<Record<ForecastList, (o: KubeObject) => object>> = { nodes: nodeAsPlanned, pods: podAsPlanned, events: eventAsPlanned };

function asPlanned(m: ListRequest): ListRequest {
  const cut = AS_PLANNED[m.list];
  if (!cut) return m;
  const each = (items: readonly KubeObject[]) => items.map(cut) as KubeObject[];
  return m.type === 'reset' ? { ...m, items: each(m.items) } : { ...m, added: each(m.added) };
}

/**
 * The lists' changes on their way to the worker: gathered (ForecastFeed) and
 * sent every FEED_MS while a forecast is wanted (a rollout runs), held while
 * none is (the page's first load, a finished rollout). Sent regardless, a page
 * opened on a DaemonSet of 5000 nodes copied every node and pod (~30 MB of
 * objects) into a worker with nothing to plan, on the main thread, while its
 * lists were still loading. What goes at once (the lists whole, when a rollout
 * starts) goes in slices of FEED_SLICE objects, a task each: in one task, the
 * copy held the main thread 1.9 s as a 5000-node rollout began.
 * `then(f)` runs f once all that is queued has been posted (a plan asked for
 * reads the lists whole).
 */
export class ForecastSender {
  private feed = new ForecastFeed();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private active = false;
  private queue: (ListRequest | (() => void))[] = [];
  private slicing: ReturnType<typeof setTimeout> | undefined;

  constructor(private post: (m: ListRequest) => void) {}

  take(list: ForecastList, state: Parameters<ForecastFeed['take']>[1]) {
    if (this.feed.take(list, state) && this.active) this.timer ??= setTimeout(() => this.send(), FEED_MS);
  }

  /** Whether a forecast is wanted: from now on changes are sent as they come (what was held, at once), or held. */
  setActive(active: boolean) {
    this.active = active;
    if (active) this.send();
    else this.stop();
  }

  send() {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const m of this.feed.drain()) {
      const items = m.type === 'reset' ? m.items : m.added;
      for (let i = 0; i === 0 || i < items.length; i += FEED_SLICE) {
        const part = items.slice(i, i + FEED_SLICE);
        if (i === 0) this.queue.push(m.type === 'reset' ? { ...m, items: part } : { ...m, added: part });
        else this.queue.push({ type: 'change', list: m.list, removed: [], added: part });
      }
    }
    this.next();
  }

  /** Runs `f` once everything queued so far has been posted. */
  then(f: () => void) {
    this.queue.push(f);
    this.next();
  }

  stop() {
    clearTimeout(this.timer);
    clearTimeout(this.slicing);
    this.timer = this.slicing = undefined;
  }

  /** Posts up to FEED_SLICE objects now; the rest in the next tasks. */
  private next() {
    if (this.slicing !== undefined) return;
    let sent = 0;
    while (this.queue.length) {
      const m = this.queue[0];
      if (typeof m === 'function') {
        this.queue.shift();
        m();
        continue;
      }
      const size = m.type === 'reset' ? m.items.length : m.added.length;
      if (sent > 0 && sent + size > FEED_SLICE) {
        this.slicing = setTimeout(() => {
          this.slicing = undefined;
          this.next();
        }, 0);
        return;
      }
      this.queue.shift();
      this.post(asPlanned(m));
      sent += size;
    }
  }
}

export class ForecastMirror {
  private lists = new Map<ForecastList, Map<string, KubeObject>>(FORECAST_LISTS.map((l) => [l, new Map()]));

  take(m: Exclude<ForecastRequest, { type: 'plan' }>) {
    const list = this.lists.get(m.list)!;
    if (m.type === 'reset') {
      list.clear();
      for (const o of m.items) list.set(uidOf(o), o);
      return;
    }
    for (const uid of m.removed) list.delete(uid);
    for (const o of m.added) list.set(uidOf(o), o);
  }

  view(): ClusterView {
    const of = (l: ForecastList) => [...this.lists.get(l)!.values()] as never[];
    return { nodes: of('nodes'), pods: of('pods'), revisions: of('revisions'), daemonSets: of('daemonSets'), events: of('events') };
  }

  /** The forecast for `ds` from the lists as they are (the rollout in progress: only while it runs). */
  plan(id: number, ds: KubeObject, now: number, withPlan: boolean): ForecastAnswer {
    const view = this.view();
    const hash = hashOfTemplate(ds as never, view);
    const rev = revisionsOfDaemonSet(ds as never, view).find((r) => r.hash === hash);
    const start = rev ? Date.parse(rev.object.metadata.creationTimestamp ?? '') : undefined;
    if (!hash || start === undefined || Number.isNaN(start)) return { id, hash, done: 0 };
    const pods = view.pods.filter((p) => controlledBy(p as never, ds.metadata.uid));
    const fresh = (p: any) => p.metadata?.labels?.[ControllerRevisionHashLabel] === hash;
    const plan = planRollout({ ds: ds as never, nodes: view.nodes, pods, isNew: fresh, now, pace: paceFor(ds as never, view), runs: runsFor(view.nodes.length) });
    const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
    const done = pods.filter((p) => fresh(p) && podAvailableTime(p as never, minReady) !== undefined).length;
    const f = plan.forecast!;
    return { id, hash, start, forecast: { p10: f.p10, p50: f.p50, p90: f.p90, completes: f.completes }, done, plan: withPlan ? plan : undefined };
  }

  /** Handles one request; an answer for a plan. */
  handle(m: ForecastRequest): ForecastAnswer | undefined {
    if (m.type !== 'plan') return void this.take(m);
    try {
      return this.plan(m.id, m.ds, m.now, m.withPlan);
    } catch (e) {
      return { id: m.id, done: 0, error: String(e) };
    }
  }
}
