// Events: core v1 Event and events.k8s.io/v1 Event are two API versions of
// one stored resource, as kube-apiserver serves them (pkg/registry/core/event;
// both read and write /registry/events). The stored form is core v1; the
// events.k8s.io/v1 kind converts field by field on the way in and out
// (pkg/apis/events/v1/conversion.go). Validation, Table columns and field
// selectors follow pkg/apis/core/validation/events.go and the printers.
import { z } from 'zod';
import { fieldErrors, type FieldError } from '../lib/field.ts';
import { humanDuration } from '../lib/duration.ts';
import { escapeValue } from '../lib/fieldselector.ts';
import { isDNS1123Subdomain, isQualifiedName } from '../lib/names.ts';
import { deepEqual } from '../lib/json.ts';
import type { KindDefinition, PrinterColumn } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import { metaSchemas, objectSchema, validateObjectMeta } from './meta.ts';
import { corev1 } from './generated/corev1.ts';
import { named, once } from './schema.ts';

export const ReportingInstanceLengthLimit = 128;
export const ActionLengthLimit = 128;
export const ReasonLengthLimit = 128;
export const NoteLengthLimit = 1024;

const coreDescription = 'Event is a report of an event somewhere in the cluster. Events have a limited retention time and triggers and messages may evolve with time.';
const eventsDescription =
  'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time and triggers and messages may evolve with time.';

const eventSchemas = once(() => {
  const MicroTime = named('io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', z.string().meta({ format: 'date-time' }));

  const EventSource = named(
    'io.k8s.api.core.v1.EventSource',
    z
      .object({
        component: z.string().optional().describe('Component from which the event is generated.'),
        host: z.string().optional().describe('Node name on which the event is generated.'),
      })
      .describe('EventSource contains information for an event.'),
  );

  const CoreEventSeries = named(
    'io.k8s.api.core.v1.EventSeries',
    z
      .object({
        count: z.number().int().optional().describe('Number of occurrences in this series up to the last heartbeat time'),
        lastObservedTime: MicroTime.optional().describe('Time of the last occurrence observed'),
      })
      .describe('EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.'),
  );

  const EventsEventSeries = named(
    'io.k8s.api.events.v1.EventSeries',
    z
      .object({
        count: z.number().int().optional().describe('count is the number of occurrences in this series up to the last heartbeat time.'),
        lastObservedTime: MicroTime.optional().describe('lastObservedTime is the time when last Event from the series was seen before last heartbeat.'),
      })
      .describe('EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.'),
  );
  return { MicroTime, EventSource, CoreEventSeries, EventsEventSeries };
});

// ---- conversion ---------------------------------------------------------------

/** Sets `to[key]` when `value` is present (the Go zero values are omitted). */
function put(to: any, key: string, value: unknown) {
  if (value !== undefined && value !== null && value !== '' && value !== 0) to[key] = value;
}

/** events.k8s.io/v1 -> core v1 (Convert_v1_Event_To_core_Event, through the internal type). */
export function eventsToCore(o: any): any {
  const out: any = { apiVersion: 'v1', kind: 'Event', metadata: o.metadata };
  put(out, 'involvedObject', o.regarding);
  if (!out.involvedObject) out.involvedObject = {};
  put(out, 'reason', o.reason);
  put(out, 'message', o.note);
  put(out, 'source', o.deprecatedSource && Object.keys(o.deprecatedSource).length ? o.deprecatedSource : undefined);
  put(out, 'firstTimestamp', o.deprecatedFirstTimestamp);
  put(out, 'lastTimestamp', o.deprecatedLastTimestamp);
  put(out, 'count', o.deprecatedCount);
  put(out, 'type', o.type);
  put(out, 'eventTime', o.eventTime);
  put(out, 'series', o.series);
  put(out, 'action', o.action);
  put(out, 'related', o.related);
  put(out, 'reportingComponent', o.reportingController);
  put(out, 'reportingInstance', o.reportingInstance);
  return out;
}

/** core v1 -> events.k8s.io/v1 (Convert_core_Event_To_v1_Event). */
export function coreToEvents(o: any): any {
  const out: any = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: o.metadata };
  put(out, 'eventTime', o.eventTime);
  put(out, 'series', o.series);
  put(out, 'reportingController', o.reportingComponent);
  put(out, 'reportingInstance', o.reportingInstance);
  put(out, 'action', o.action);
  put(out, 'reason', o.reason);
  put(out, 'regarding', o.involvedObject && Object.keys(o.involvedObject).length ? o.involvedObject : undefined);
  put(out, 'related', o.related);
  put(out, 'note', o.message);
  put(out, 'type', o.type);
  put(out, 'deprecatedSource', o.source && Object.keys(o.source).length ? o.source : undefined);
  put(out, 'deprecatedFirstTimestamp', o.firstTimestamp);
  put(out, 'deprecatedLastTimestamp', o.lastTimestamp);
  put(out, 'deprecatedCount', o.count);
  return out;
}

// ---- validation -----------------------------------------------------------------

type RequestVersion = 'v1' | 'events.k8s.io/v1';

/** legacyValidateEvent: what every event must satisfy, whichever version wrote it. `e` is core v1. */
function legacyValidateEvent(e: any, version: RequestVersion): FieldError[] {
  const errs: FieldError[] = [];
  const ns = e.metadata?.namespace ?? '';
  const io = e.involvedObject ?? {};
  const rc = version === 'v1' ? 'reportingComponent' : 'reportingController';
  const regarding = version === 'v1' ? 'involvedObject' : 'regarding';
  const note = version === 'v1' ? 'message' : 'note';
  if (!e.eventTime) {
    // Old-style events: the event's namespace and the involved object's agree (or "default" for old clients).
    if (!io.namespace) {
      if (ns !== '' && ns !== 'default') errs.push(fieldErrors.invalid(`${regarding}.namespace`, io.namespace ?? '', 'does not match event.namespace'));
    } else if (ns !== io.namespace) errs.push(fieldErrors.invalid(`${regarding}.namespace`, io.namespace, 'does not match event.namespace'));
  } else {
    if (!io.namespace && ns !== 'default' && ns !== 'kube-system') {
      errs.push(fieldErrors.invalid(`${regarding}.namespace`, io.namespace ?? '', 'does not match event.namespace'));
    }
    const controller: string = e.reportingComponent ?? '';
    if (!controller) errs.push(fieldErrors.required(rc));
    for (const m of isQualifiedName(controller)) errs.push(fieldErrors.invalid(rc, controller, m));
    const instance: string = e.reportingInstance ?? '';
    if (!instance) errs.push(fieldErrors.required('reportingInstance'));
    if (instance.length > ReportingInstanceLengthLimit) errs.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${ReportingInstanceLengthLimit} characters`));
    const action: string = e.action ?? '';
    if (!action) errs.push(fieldErrors.required('action'));
    if (action.length > ActionLengthLimit) errs.push(fieldErrors.invalid('action', '', `can have at most ${ActionLengthLimit} characters`));
    const reason: string = e.reason ?? '';
    if (!reason) errs.push(fieldErrors.required('reason'));
    if (reason.length > ReasonLengthLimit) errs.push(fieldErrors.invalid('reason', '', `can have at most ${ReasonLengthLimit} characters`));
    if ((e.message ?? '').length > NoteLengthLimit) errs.push(fieldErrors.invalid(note, '', `can have at most ${NoteLengthLimit} characters`));
  }
  for (const m of isDNS1123Subdomain(ns)) errs.push(fieldErrors.invalid('namespace', ns, m));
  return errs;
}

function validateV1EventSeries(e: any): FieldError[] {
  const errs: FieldError[] = [];
  if (e.series) {
    if ((e.series.count ?? 0) < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
    if (!e.series.lastObservedTime) errs.push(fieldErrors.required('series.lastObservedTime'));
  }
  return errs;
}

/** ValidateEventCreate / ValidateEventUpdate: core v1 keeps the legacy rules only; events.k8s.io/v1 is strict. */
export function validateEvent(e: any, old: any | undefined, version: RequestVersion): FieldError[] {
  const errs = legacyValidateEvent(e, version);
  // Names are checked for every version: a name must be a path segment of its URL.
  errs.unshift(...validateObjectMeta(e.metadata, { namespaced: true, nameFn: 'subdomain', old: old?.metadata }));
  if (version === 'v1') return errs;
  const names: Record<string, string> =
    version === 'events.k8s.io/v1'
      ? { involvedObject: 'regarding', message: 'note', source: 'deprecatedSource', firstTimestamp: 'deprecatedFirstTimestamp', lastTimestamp: 'deprecatedLastTimestamp', count: 'deprecatedCount', reportingComponent: 'reportingController' }
      : {};
  const name = (f: string) => names[f] ?? f;
  if (!old) {
    errs.push(...validateV1EventSeries(e));
    if (!e.eventTime) errs.push(fieldErrors.required('eventTime'));
    if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${e.type ?? ''}`));
    if (e.firstTimestamp) errs.push(fieldErrors.invalid(name('firstTimestamp'), '', 'needs to be unset'));
    if (e.lastTimestamp) errs.push(fieldErrors.invalid(name('lastTimestamp'), '', 'needs to be unset'));
    if (e.count) errs.push(fieldErrors.invalid(name('count'), '', 'needs to be unset'));
    if (e.source?.component || e.source?.host) errs.push(fieldErrors.invalid(name('source'), '', 'needs to be unset'));
    return errs;
  }
  if (!deepEqual(e.series, old.series)) errs.push(...validateV1EventSeries(e));
  const immutable = ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'action', 'related', 'reportingComponent', 'reportingInstance'];
  for (const f of immutable) {
    if (!deepEqual(e[f] ?? null, old[f] ?? null)) errs.push(fieldErrors.invalid(name(f), e[f] ?? null, 'field is immutable'));
  }
  return errs;
}

// ---- Table and field selectors -----------------------------------------------------

const since = (t: string | undefined, now: Date) => {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? '<unknown>' : humanDuration(now.getTime() - ms);
};

/** First and last seen and the count, as printEvent reads them from either generation of event. */
export function eventTimes(e: any): { first?: string; last?: string; count: number } {
  const first = e.firstTimestamp || e.eventTime || undefined;
  let last = e.lastTimestamp || first;
  let count = e.count ?? 0;
  if (e.series) {
    last = e.series.lastObservedTime;
    count = e.series.count ?? 0;
  } else if (!count) count = 1;
  return { first, last, count };
}

/** `pod/web-1`, or the lower-cased kind alone. */
export function eventTarget(e: any): string {
  const io = e.involvedObject ?? {};
  return io.name ? `${(io.kind ?? '').toLowerCase()}/${io.name}` : (io.kind ?? '').toLowerCase();
}

function eventSource(e: any): string {
  const component = e.source?.component || e.reportingComponent || '';
  const instance = e.source?.host || e.reportingInstance || '';
  if (!component) return '';
  return instance ? `${component}, ${instance}` : component;
}

const coreColumns: PrinterColumn[] = [
  { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.', priority: 0, cell: (e, now) => since(eventTimes(e).last, now) },
  { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future', priority: 0, cell: (e) => e.type ?? '' },
  { name: 'Reason', type: 'string', description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", priority: 0, cell: (e) => e.reason ?? '' },
  { name: 'Object', type: 'string', description: 'The object that this event is about.', priority: 0, cell: eventTarget },
  { name: 'Subobject', type: 'string', description: 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.', priority: 1, cell: (e) => e.involvedObject?.fieldPath ?? '' },
  { name: 'Source', type: 'string', description: 'The component reporting this event. Should be a short machine understandable string.', priority: 1, cell: eventSource },
  { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', priority: 0, cell: (e) => (e.message ?? '').trim() },
  { name: 'First Seen', type: 'string', description: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', priority: 1, cell: (e, now) => since(eventTimes(e).first, now) },
  { name: 'Count', type: 'string', description: 'The number of times this event has occurred.', priority: 1, cell: (e) => eventTimes(e).count },
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 1, cell: (e) => e.metadata?.name ?? '' },
];

const ref = (f: string) => (e: any) => String(e.involvedObject?.[f] ?? '');
/** The selectable fields of pkg/registry/core/event (ToSelectableFields), on the stored form. */
const coreFields: Record<string, (e: any) => string> = {
  'metadata.name': (e) => e.metadata?.name ?? '',
  'metadata.namespace': (e) => e.metadata?.namespace ?? '',
  'involvedObject.kind': ref('kind'),
  'involvedObject.namespace': ref('namespace'),
  'involvedObject.name': ref('name'),
  'involvedObject.uid': ref('uid'),
  'involvedObject.apiVersion': ref('apiVersion'),
  'involvedObject.resourceVersion': ref('resourceVersion'),
  'involvedObject.fieldPath': ref('fieldPath'),
  reason: (e) => e.reason ?? '',
  reportingComponent: (e) => e.reportingComponent ?? '',
  source: (e) => e.source?.component ?? '',
  type: (e) => e.type ?? '',
};

/** events.k8s.io/v1's field label conversion: its names for the same selectable fields. */
const eventsFieldNames: Record<string, string> = {
  'metadata.name': 'metadata.name',
  'metadata.namespace': 'metadata.namespace',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reason: 'reason',
  reportingController: 'reportingComponent',
  type: 'type',
};

const strategy = {
  mainResetsFields: [],
  statusResetsFields: [],
  statusResetsMetadata: [],
  statusOnCreate: 'keep' as const,
  generation: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  // Events own nothing and are owned by nothing the collector follows.
  defaultGarbageCollectionPolicy: 'Unsupported' as const,
};

const coreEventSchema = once(() => {
  const { Time } = metaSchemas();
  const { ObjectReference } = corev1();
  const { MicroTime, EventSource, CoreEventSeries } = eventSchemas();
  return objectSchema(
  undefined,
  undefined,
  {
    involvedObject: ObjectReference.describe('The object that this event is about.'),
    reason: z.string().optional().describe("This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    message: z.string().optional().describe('A human-readable description of the status of this operation.'),
    source: EventSource.optional().describe('The component reporting this event. Should be a short machine understandable string.'),
    firstTimestamp: Time.optional().describe('The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)'),
    lastTimestamp: Time.optional().describe('The time at which the most recent occurrence of this event was recorded.'),
    count: z.number().int().optional().describe('The number of times this event has occurred.'),
    type: z.string().optional().describe('Type of this event (Normal, Warning), new types could be added in the future'),
    eventTime: MicroTime.optional().describe('Time when this Event was first observed.'),
    series: CoreEventSeries.optional().describe('Data about the Event series this event represents or nil if it\'s a singleton Event.'),
    action: z.string().optional().describe('What action was taken/failed regarding to the Regarding object.'),
    related: ObjectReference.optional().describe('Optional secondary object for more complex actions.'),
    reportingComponent: z.string().optional().describe('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.'),
    reportingInstance: z.string().optional().describe('ID of the controller instance, e.g. `kubelet-xyzf`.'),
  },
  coreDescription,
);
});

export const eventKind: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  categories: [],
  scope: 'Namespaced',
  description: coreDescription,
  encodedOnDemand: true,
  ignoredByGarbageCollector: true,
  get schema() {
    return coreEventSchema();
  },
  subresources: {},
  verbs: STANDARD_VERBS,
  defaults() {},
  validate: (e, { old }) => validateEvent(e, old, 'v1'),
  strategy,
  printerColumns: coreColumns,
  fieldSelector: {
    fields: coreFields,
    unsupported: 'field-label',
    // `kubectl describe` and the app's Events sections list an object's events by its name: at
    // 5000 nodes there are hundreds of thousands of events, and testing each took most of a second.
    indexed: ['involvedObject.name'],
  },
};

const eventsEventSchema = once(() => {
  const { Time } = metaSchemas();
  const { ObjectReference } = corev1();
  const { MicroTime, EventSource, EventsEventSeries } = eventSchemas();
  return objectSchema(
  undefined,
  undefined,
  {
    eventTime: MicroTime.optional().describe('eventTime is the time when this Event was first observed. It is required.'),
    series: EventsEventSeries.optional().describe("series is data about the Event series this event represents or nil if it's a singleton Event."),
    reportingController: z.string().optional().describe('reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.'),
    reportingInstance: z.string().optional().describe('reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.'),
    action: z.string().optional().describe('action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.'),
    reason: z.string().optional().describe('reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.'),
    regarding: ObjectReference.optional().describe('regarding contains the object this Event is about.'),
    related: ObjectReference.optional().describe('related is the optional secondary object for more complex actions.'),
    note: z.string().optional().describe('note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.'),
    type: z.string().optional().describe('type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. This field cannot be empty for new Events.'),
    deprecatedSource: EventSource.optional().describe('deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedFirstTimestamp: Time.optional().describe('deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedLastTimestamp: Time.optional().describe('deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedCount: z.number().int().optional().describe('deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.'),
  },
  eventsDescription,
);
});

export const eventsEventKind: KindDefinition = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  categories: [],
  scope: 'Namespaced',
  description: eventsDescription,
  ignoredByGarbageCollector: true,
  get schema() {
    return eventsEventSchema();
  },
  subresources: {},
  verbs: STANDARD_VERBS,
  defaults() {},
  validate: (e, { old }) => validateEvent(eventsToCore(e), old && eventsToCore(old), 'events.k8s.io/v1'),
  strategy,
  printerColumns: coreColumns.map((c) => ({ ...c, cell: (e: any, now: Date) => c.cell(eventsToCore(e), now) })),
  fieldSelector: {
    fields: Object.fromEntries(Object.entries(eventsFieldNames).map(([name, core]) => [name, (e: any) => coreFields[core](eventsToCore(e))])),
    unsupported: 'field-label',
  },
  storedAs: { kind: eventKind, toStored: eventsToCore, fromStored: coreToEvents },
};

/** The event types client-go records. */
export const EventTypeNormal = 'Normal';
export const EventTypeWarning = 'Warning';

// ---- reading events (the app's Events sections and pages) ---------------------

// Field selectors, so that a view lists the events it reads and not its namespace's (or the
// cluster's): ten DaemonSets rolled out on 5000 nodes leave 400,000 events for the hour they live.

/** The events about one object, as `kubectl describe` lists them (the list's namespace is the object's). */
export const eventsAbout = (kind: string, name: string) => `involvedObject.kind=${kind},involvedObject.name=${name}`;

/**
 * A namespace's pods' events but the four each pod's start records on the way (Scheduled, Pulling,
 * Pulled, Created), which are most of them and which no rollout view reads: the kubelets' Started
 * and Killing time the old pods' stop, and warnings say why a node stalls.
 */
export const podEventsButStarts = 'involvedObject.kind=Pod,reason!=Scheduled,reason!=Pulling,reason!=Pulled,reason!=Created';

/**
 * The events of one involved kind, type and reason (those given), as the server selects them
 * (`kubectl get events --field-selector type=Warning`): the Events page's menus. The server keeps an
 * hour of events (400,000 after ten rollouts on 5000 nodes) and the page the newest 20,000, so a
 * choice made in the page alone would find only what those hold.
 */
export function eventsChosen(c: { kind?: string; type?: string; reason?: string }): string {
  const terms: [string, string | undefined][] = [['involvedObject.kind', c.kind], ['type', c.type], ['reason', c.reason]];
  return terms.flatMap(([field, value]) => (value ? [`${field}=${escapeValue(value)}`] : [])).join(',');
}

/** Warnings about nodes, wherever recorded (a kubelet records its node's in `default`). */
export const nodeWarnings = eventsChosen({ kind: 'Node', type: EventTypeWarning });

/** The involved object of an event in either version. */
export const involvedOf = (e: any): { kind?: string; namespace?: string; name?: string; uid?: string; fieldPath?: string } => e.involvedObject ?? e.regarding ?? {};

/**
 * Each event's last time, read once: the Events page asks it of the 20,000 to 25,000 it keeps each
 * time it trims them to the newest (about every ten pages while 228,000 events load: 2 s of date
 * parsing on the main thread). By the object: a change to an event comes as a new object.
 */
const lastSeen = new WeakMap<object, number>();

/** When an event last happened (ms), for newest-first ordering. */
export function lastSeenMs(e: any): number {
  let ms = lastSeen.get(e);
  if (ms !== undefined) return ms;
  const t = eventTimes(e.apiVersion === 'events.k8s.io/v1' ? eventsToCore(e) : e).last;
  ms = t ? Date.parse(t) : NaN;
  if (Number.isNaN(ms)) ms = Date.parse(e.metadata?.creationTimestamp ?? '') || 0;
  lastSeen.set(e, ms);
  return ms;
}

/** How many times it happened. */
export const occurrences = (e: any) => eventTimes(e.apiVersion === 'events.k8s.io/v1' ? eventsToCore(e) : e).count;

/**
 * The events about one object, newest first, matched as `kubectl describe`
 * selects them (kind, name and namespace of the involved object; a node's
 * events name it by name as their uid, so uids are not compared). Kept as the
 * namespace's events change: a DaemonSet on 5000 nodes has ~13,000 events
 * about it among ~40,000, and matching and sorting them all again took a few
 * ms on each events update of a rollout (many a second). `take` looks only at
 * the events a change removed and added; the newest are picked by one pass
 * over those about the object when they changed.
 */
export class EventsAbout {
  /** The matching events by key (their uid, else namespace/name), each with its time read once. */
  private mine = new Map<string, { e: any; at: number }>();
  private newestOf: { n: number; list: any[] } | undefined;
  /** How many of them are warnings. */
  warnings = 0;

  constructor(private readonly about: { kind: string; name: string; namespace?: string }) {}

  get count(): number {
    return this.mine.size;
  }

  private matches(e: any): boolean {
    const io = involvedOf(e);
    return io.kind === this.about.kind && io.name === this.about.name && (io.namespace || '') === (this.about.namespace || '');
  }

  /** Takes a whole list, forgetting what was taken before. */
  reset(events: readonly any[]) {
    this.mine.clear();
    this.warnings = 0;
    this.take([], events);
  }

  /** Takes what a change of the list removed and added (a replaced event is both); true when the events about the object changed. */
  take(removed: readonly any[], added: readonly any[]): boolean {
    let changed = false;
    for (const e of removed) {
      const key = keyOfEvent(e);
      const had = this.mine.get(key);
      if (!had || had.e !== e) continue;
      this.mine.delete(key);
      if (had.e.type === EventTypeWarning) this.warnings--;
      changed = true;
    }
    for (const e of added) {
      if (!this.matches(e)) continue;
      const key = keyOfEvent(e);
      const had = this.mine.get(key);
      if (had?.e.type === EventTypeWarning) this.warnings--;
      this.mine.set(key, { e, at: lastSeenMs(e) });
      if (e.type === EventTypeWarning) this.warnings++;
      changed = true;
    }
    if (changed) this.newestOf = undefined;
    return changed;
  }

  /** The newest `n`, newest first (of one time, the later name first: a recorder's names grow with time). */
  newest(n: number): any[] {
    if (this.newestOf?.n === n) return this.newestOf.list;
    const top: { e: any; at: number }[] = [];
    const before = (a: { e: any; at: number }, b: { e: any; at: number }) => a.at > b.at || (a.at === b.at && (a.e.metadata?.name ?? '') > (b.e.metadata?.name ?? ''));
    for (const x of this.mine.values()) {
      if (top.length === n && !before(x, top[n - 1])) continue;
      let i = top.length < n ? top.length : n - 1;
      while (i > 0 && before(x, top[i - 1])) i--;
      top.splice(i, 0, x);
      if (top.length > n) top.pop();
    }
    this.newestOf = { n, list: top.map((x) => x.e) };
    return this.newestOf.list;
  }
}

const keyOfEvent = (e: any): string => e.metadata?.uid ?? `${e.metadata?.namespace ?? ''}/${e.metadata?.name ?? ''}`;

/** The source of an event as `kubectl describe` prints it under From: `kubelet`, or the reporting controller. */
export const eventFrom = (e: any) => e.source?.component || e.reportingComponent || e.deprecatedSource?.component || e.reportingController || '';
/** The host an event came from (the kubelet's node). */
export const eventHost = (e: any) => e.source?.host || e.reportingInstance || e.deprecatedSource?.host || '';
export const eventMessage = (e: any) => (e.message ?? e.note ?? '') as string;
export const eventReason = (e: any) => String(e.reason ?? '');
