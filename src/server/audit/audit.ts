// The audit log (--audit-log-path, --audit-policy-file): one audit.k8s.io/v1
// Event per stage of each request the policy selects, as JSON lines, with
// what kube-apiserver's audit filter records: who (and as whom), what verb on
// which object, from where, the response code, and the request and response
// bodies at the levels that ask for them.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonTextDeeperThan } from '../../lib/json.ts';
import { parseDocumentWithin } from '../../lib/yamldepth.ts';
import { MAX_DEPTH } from '../http/bodies.ts';
import type { UserInfo } from '../auth/authn.ts';
import { evaluatePolicy, levelAtLeast, type Level, type Policy, type RequestAttributes, type Stage } from './policy.ts';
import type { LogFile } from './logfile.ts';

interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: { metadata: Record<string, never>; status?: string; message?: string; reason?: string; details?: unknown; code: number };
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Go's RFC3339Micro: audit time stamps carry microseconds. */
const micro = (ms: number, hr: bigint) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, (_, m) => `.${m}${String((hr / 1000n) % 1000n).padStart(3, '0')}Z`);
const now = () => micro(Date.now(), process.hrtime.bigint());

const auditUser = (u: UserInfo): AuditUser => {
  const a: AuditUser = { username: u.name };
  if (u.uid) a.uid = u.uid;
  if (u.groups.length) a.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) a.extra = u.extra;
  return a;
};

/** The request's client addresses: X-Forwarded-For, X-Real-Ip, then the peer (upstream's SourceIPs). */
function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const xff = req.headers['x-forwarded-for'];
  if (typeof xff === 'string') ips.push(...xff.split(',').map((s) => s.trim()).filter(Boolean));
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string' && real.trim()) ips.push(real.trim());
  const peer = req.socket?.remoteAddress?.replace(/^::ffff:/, '');
  if (peer && !ips.includes(peer)) ips.push(peer);
  return ips;
}

/** A body as the log shows it: JSON or YAML decoded; anything else (protobuf) left out. */
function decodeBody(body: Buffer, contentType: string): unknown {
  if (!body.length) return undefined;
  try {
    if (contentType.includes('json')) {
      // A body nested too deep for the request is too deep for the log's JSON.stringify (a RangeError there ended the process).
      const text = body.toString('utf8');
      return jsonTextDeeperThan(text, MAX_DEPTH) ? undefined : JSON.parse(text);
    }
    if (contentType.includes('yaml')) {
      // Bounded as the request's own decoding is (yamldepth.ts): too deep, it is left out.
      const doc = parseDocumentWithin(body.toString('utf8'), MAX_DEPTH);
      return doc.errors.length ? undefined : doc.toJS();
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** One audited request: its stages are written as they happen. */
export class AuditRecord {
  private readonly event: AuditEvent;
  private readonly done = new Set<Stage>();
  private responseBody: Buffer | string | undefined;

  constructor(
    private readonly log: LogFile,
    private readonly completed: (event: AuditEvent) => void,
    readonly level: Level,
    private readonly omit: Set<Stage>,
    req: IncomingMessage,
    res: ServerResponse,
    user: UserInfo,
    impersonator: UserInfo | undefined,
    attrs: RequestAttributes & { objectRef?: ObjectReference },
  ) {
    const received = now();
    const id = typeof req.headers['audit-id'] === 'string' && req.headers['audit-id'] ? req.headers['audit-id'] : randomUUID();
    res.setHeader('Audit-Id', id);
    this.event = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level,
      auditID: id,
      stage: 'RequestReceived',
      requestURI: req.url ?? '/',
      verb: attrs.verb,
      user: auditUser(impersonator ?? user),
      ...(impersonator ? { impersonatedUser: auditUser(user) } : {}),
      sourceIPs: sourceIPs(req),
      ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
      ...(attrs.objectRef ? { objectRef: attrs.objectRef } : {}),
      requestReceivedTimestamp: received,
      stageTimestamp: received,
    };
    this.emit('RequestReceived');
    // The answer's body, as written (writeBody ends the response with the whole text):
    // the object at RequestResponse, a failure's Status at any level.
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    (res as { end: unknown }).end = (...args: unknown[]) => {
      if (typeof args[0] === 'string' || Buffer.isBuffer(args[0])) this.responseBody = args[0];
      return end(...args);
    };
  }

  /** The name of the object a create made (upstream's LogRequestObject fills objectRef from the object). */
  objectName(name: string | undefined) {
    if (name && this.event.objectRef && !this.event.objectRef.name) this.event.objectRef.name = name;
  }

  /** The request body as read (Request level and above). */
  requestBody(body: Buffer, contentType: string) {
    if (levelAtLeast(this.level, 'Request')) this.event.requestObject = decodeBody(body, contentType);
  }

  /** A long-running request (a watch) began answering. */
  responseStarted(code: number) {
    this.event.responseStatus = { metadata: {}, code };
    this.emit('ResponseStarted');
  }

  /** The response was sent, with `body` for the status of a failure (and the object at RequestResponse). */
  responseComplete(code: number, contentType?: string) {
    if (this.done.has('ResponseComplete')) return;
    const status: NonNullable<AuditEvent['responseStatus']> = { metadata: {}, code };
    const wanted = code >= 300 || levelAtLeast(this.level, 'RequestResponse');
    const body = wanted && this.responseBody !== undefined && contentType?.includes('json') ? decodeBody(Buffer.from(this.responseBody), 'json') : undefined;
    const object = body as { kind?: string; status?: string; message?: string; reason?: string; details?: unknown } | undefined;
    if (object?.kind === 'Status') {
      // Upstream copies a Status's bounded fields whatever the level.
      if (object.status) status.status = object.status;
      if (object.message) status.message = object.message;
      if (object.reason) status.reason = object.reason;
      if (object.details) status.details = object.details;
    }
    this.event.responseStatus = status;
    if (levelAtLeast(this.level, 'RequestResponse') && object) this.event.responseObject = object;
    this.emit('ResponseComplete');
    this.completed(this.event);
  }

  private emit(stage: Stage) {
    this.done.add(stage);
    if (this.omit.has(stage)) return;
    this.event.stage = stage;
    this.event.stageTimestamp = stage === 'RequestReceived' ? this.event.requestReceivedTimestamp : now();
    this.log.write(JSON.stringify(this.event));
  }
}

/** Who last changed an object, as the audit log recorded it (what the app shows as "last changed by"). */
export interface LastChange {
  kind: 'LastChange';
  apiVersion: 'v1';
  objectRef: ObjectReference;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  userAgent?: string;
  auditID: string;
  /** When the change was answered (RFC 3339, microseconds). */
  time: string;
}

/** The changes remembered (the most recent per object; the oldest object is forgotten first). */
const LAST_CHANGES_KEPT = 50_000;
const CHANGING_VERBS = new Set(['create', 'update', 'patch', 'delete']);
const changeKey = (r: { apiGroup?: string; resource?: string; namespace?: string; name?: string }) => `${r.apiGroup ?? ''}/${r.resource ?? ''}/${r.namespace ?? ''}/${r.name ?? ''}`;

/** The path that answers the last change of one object: `?group=&resource=&namespace=&name=`. */
export const LAST_CHANGE_PATH = '/debug/audit/last-change';

export class Auditor {
  private readonly lastChanges = new Map<string, LastChange>();

  constructor(
    private readonly policy: Policy,
    private readonly log: LogFile,
  ) {}

  /** The last successful change of an object the policy audited (not of its status), if this server has seen one. */
  lastChange(ref: { group: string; resource: string; namespace?: string; name: string }): LastChange | undefined {
    return this.lastChanges.get(changeKey({ apiGroup: ref.group, resource: ref.resource, namespace: ref.namespace, name: ref.name }));
  }

  private remember(e: AuditEvent) {
    const ref = e.objectRef;
    const code = e.responseStatus?.code ?? 0;
    if (!ref?.name || !ref.resource || !CHANGING_VERBS.has(e.verb) || code < 200 || code >= 300) return;
    // Status is the controllers' and node agents' report, written many times a second in a big
    // rollout: who last changed an object is who last changed the object itself.
    if (ref.subresource === 'status') return;
    const key = changeKey(ref);
    this.lastChanges.delete(key);
    this.lastChanges.set(key, {
      kind: 'LastChange',
      apiVersion: 'v1',
      objectRef: ref,
      verb: e.verb,
      user: e.user,
      ...(e.impersonatedUser ? { impersonatedUser: e.impersonatedUser } : {}),
      ...(e.userAgent ? { userAgent: e.userAgent } : {}),
      auditID: e.auditID,
      time: e.stageTimestamp,
    });
    if (this.lastChanges.size > LAST_CHANGES_KEPT) this.lastChanges.delete(this.lastChanges.keys().next().value!);
  }

  /**
   * Starts the record of a request, or undefined when the policy says None.
   * `user` is who the request acts as; `impersonator` who authenticated, when
   * that is someone else.
   */
  begin(req: IncomingMessage, res: ServerResponse, user: UserInfo, impersonator: UserInfo | undefined, attrs: RequestAttributes & { objectRef?: ObjectReference }): AuditRecord | undefined {
    // Rules about users match who authenticated, as upstream's (impersonation is audited as such).
    const { level, omitStages } = evaluatePolicy(this.policy, { ...attrs, user: { name: (impersonator ?? user).name, groups: (impersonator ?? user).groups } });
    if (level === 'None') return undefined;
    return new AuditRecord(this.log, (e) => this.remember(e), level, omitStages, req, res, user, impersonator, attrs);
  }

  close() {
    this.log.close();
  }
}
