// The request pipeline. Every API request passes the same ordered steps:
// resolve -> authenticate -> authorize -> negotiate -> decode -> (admit,
// validate, store: in the registry) -> respond. Every failure is a Status.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { apiVersionOf } from '../../kinds/kind.ts';
import { kindFor } from '../../kinds/registry.ts';
import { jsonTextDeeperThan } from '../../lib/json.ts';
import { fieldErrors } from '../../lib/field.ts';
import type { Authenticator } from '../auth/authn.ts';
import { forbiddenMessage, type Attributes, type Authorizer } from '../auth/authz.ts';
import type { UserInfo } from '../auth/authn.ts';
import { reviewResourceFor, reviewResources, type ReviewResource } from '../auth/reviews.ts';
import type { CachedObject } from '../watch/cache.ts';
import { bytesOf, joinChunks, listMetadata, writeChunks, writeList, writePrettyList, writeYAMLList, type JSONChunk } from '../watch/encodings.ts';
import type { ListPage, Store, WriteContext } from '../registry/store.ts';
import { parseFieldValidation, type FieldValidation } from '../registry/decode.ts';
import { parseDeleteOptions, parseDryRun, parseListQuery, parseResourceVersion } from '../registry/options.ts';
import { subresourceActions } from '../registry/actions.ts';
import { APPLY_PATCH_TYPE, defaultFieldManager, serverSideApply, validateFieldManager, type ApplyOptions } from '../registry/apply.ts';
import { queryBool } from '../../lib/queryparams.ts';
import { parseIncludeObject, partialChunks, partialListChunks, partialObjectMetadata, toTable, writePrettyPartialList, writePrettyTable, writeTable } from '../table.ts';
import * as discovery from '../discovery.ts';
import type { OpenAPIDocs } from '../openapi.ts';
import { acceptedMediaType, negotiate, wantsPretty, warningHeaders, writeBody, type Representation } from './negotiate.ts';
import { offerCompression } from './compression.ts';
import { ApiError, errors, successStatus } from './status.ts';
import { requestTarget, resolveRequest, type RequestInfo } from './request.ts';
import { hostRefused } from './hosts.ts';
import { isAppPath } from '../../lib/approutes.ts';
import { serveHealth, type HealthCheck } from './healthz.ts';
import { chunkedWatchSink, prepareWatch, runWatch } from './watch.ts';
import type { WatchSink } from './watchsink.ts';
import { LAST_CHANGE_PATH, type AuditRecord, type Auditor } from '../audit/audit.ts';
import { impersonatorOf } from '../auth/impersonation.ts';
import { DEFAULT_LIMITS, InflightLimiter, requestDeadlineMs, requestTimedOut, type Limits } from './limits.ts';
import { BodyDecoder, MAX_BODY_BYTES, MAX_DEPTH, PATCH_TYPES, SUPPORTED_PATCH_TYPES } from './bodies.ts';
import { bearerTokenFromProtocols, isWebSocketRequest, originAllowed, refusalResponse, WatchSockets } from './websocket.ts';

export { MAX_BODY_BYTES };

const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

export interface HandlerContext {
  kinds: readonly KindDefinition[];
  stores: Map<KindDefinition, Store>;
  openapi: OpenAPIDocs;
  authenticator: Authenticator;
  authorizer: Authorizer;
  version: Record<string, string>;
  /**
   * Serves anything that is not API (the SPA): its files, and index.html for
   * the app's routes (`appRoute`). Returns false for paths it does not serve,
   * which are then a 404 Status.
   */
  fallback?: (req: IncomingMessage, res: ServerResponse, pathname: string, appRoute: boolean) => boolean;
  /** Host header values the server answers to (see hosts.ts); all when absent. */
  acceptHost?: (host: string | undefined) => boolean;
  /** Extra response headers on every answer (CORS). */
  corsHeaders?: (req: IncomingMessage) => Record<string, string> | undefined;
  /** Tells watchers to end (server shutdown); returns the function that forgets `fn`. */
  onClose: (fn: () => void) => () => void;
  /** Origins besides the server's own whose pages may open WebSocket watches. */
  webSocketOrigins?: readonly RegExp[];
  /** Checks of /healthz, /livez and /readyz besides ping (the leader election's). */
  healthChecks?: readonly HealthCheck[];
  /** The audit log (--audit-log-path with --audit-policy-file); none records nothing. */
  auditor?: Auditor;
  /** Requests in flight, deadlines and watch bounds (limits.ts); kube-apiserver's defaults otherwise. */
  limits?: Partial<Limits>;
}

/** The socket of a request that asked to switch to WebSocket (node:http's `upgrade` event). */
interface Upgrade {
  socket: Duplex;
  head: Buffer;
}

/** Go's plain-text answer for a path no route serves; clients build their own message from it. */
class NoRoute extends Error {}

/** The audit records of requests in flight, for the steps that learn their bodies. */
const audits = new WeakMap<IncomingMessage, AuditRecord>();

const notFoundText = (res: ServerResponse) => {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('404 page not found\n');
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(req.headers['content-length'] ?? 0);
    // Past the limit nothing more is read: the answer closes the connection (see writeError).
    if (declared > MAX_BODY_BYTES) {
      reject(errors.tooLarge(`Request entity too large: limit is ${MAX_BODY_BYTES}`));
      return;
    }
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.pause();
        reject(errors.tooLarge(`Request entity too large: limit is ${MAX_BODY_BYTES}`));
      } else chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      audits.get(req)?.requestBody(body, mediaType(req));
      resolve(body);
    });
    req.on('error', reject);
  });
}

/** How long a connection closed over an unread body still takes (and drops) what the client sends (Go's rstAvoidanceDelay). */
const LINGER_MS = 500;

/**
 * Closing a connection whose client is still sending would make its kernel
 * answer with a reset, which can destroy our answer before the client read
 * it. So, as Go's server does, the connection is half-closed after the
 * answer and what arrives is dropped for a moment before it is closed.
 */
function lingerOnClose(req: IncomingMessage) {
  const socket = req.socket;
  req.removeAllListeners('data');
  req.on('data', () => {});
  req.resume();
  // Node closes a `Connection: close` connection with destroySoon once the answer is written.
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

const mediaType = (req: IncomingMessage) => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/** A DELETE body: DeleteOptions as JSON, or nothing. */
function parseDeleteBody(buf: Buffer): unknown {
  if (!buf.length) return undefined;
  const text = buf.toString('utf8');
  if (jsonTextDeeperThan(text, MAX_DEPTH)) throw errors.badRequest('invalid DeleteOptions body: exceeded max depth');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`invalid DeleteOptions body: ${(e as Error).message}`);
  }
}

/** Writes a failure as a Status (or a plain 404 for no route), unless the answer is under way. */
function writeError(res: ServerResponse, e: unknown, pretty: boolean) {
  // Answered already (the request's deadline passed while it ran).
  if (res.writableEnded) return;
  if (e instanceof NoRoute) return notFoundText(res);
  const err = e instanceof ApiError ? e : errors.internal((e as Error)?.message ?? String(e));
  if (!(e instanceof ApiError)) console.error(e);
  if (res.headersSent) {
    res.end();
    return;
  }
  // As upstream's ErrorNegotiated: a 429 or 5xx that says when to retry says it in Retry-After too.
  const retryAfter = err.details?.retryAfterSeconds;
  const headers: Record<string, string> = retryAfter && (err.code === 429 || err.code >= 500) ? { 'Retry-After': String(retryAfter) } : {};
  if (!res.req.complete && res.req.httpVersionMajor === 1) {
    // A body left unread (one over the limit) is not read on to keep the connection: it closes after the answer.
    headers.Connection = 'close';
    lingerOnClose(res.req);
  }
  writeBody(res, err.code, err.toStatus(), { pretty, headers });
}

/** What the steps before the API need: the host check, CORS, health and the app's files. */
type FrontContext = Pick<HandlerContext, 'kinds' | 'version' | 'fallback' | 'acceptHost' | 'corsHeaders' | 'healthChecks'>;

/** A request handler with node:http's `upgrade` and `clientError` events. */
export type RequestHandler = ReturnType<typeof frontDoor>;

/** Serves an API request that passed the front steps (authentication on): answers it, or throws its failure. */
type ApiRoute = (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, pretty: boolean, upgrade?: Upgrade) => Promise<void>;

/**
 * The steps every request takes before it is the API's (headers, the Host
 * check, CORS preflight, health, the app's files), the same whether the API
 * is served or still starting; then `api`. Also node:http's `upgrade` and
 * `clientError` events.
 */
function frontDoor(ctx: FrontContext, api: ApiRoute) {
  const acceptHost = ctx.acceptHost ?? (() => true);

  /**
   * node:http hands every request carrying `Upgrade` to its `upgrade` event
   * with the raw socket. Such requests go through the same pipeline: a watch
   * then switches to WebSocket; anything else, and every error before the
   * switch, is answered as plain HTTP on that socket.
   */
  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    socket.on('error', () => socket.destroy());
    return handle(req, refusalResponse(req, socket), { socket, head });
  }

  /** node:http's `clientError`: a request it could not parse gets a 400 Status, and the connection ends. */
  function clientError(err: Error & { code?: string }, socket: Duplex) {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const e = tooLarge ? new ApiError(431, undefined, 'request header fields too large') : errors.badRequest(`malformed HTTP request: ${err.code ?? err.message}`);
    const body = JSON.stringify(e.toStatus()) + '\n';
    socket.end(`HTTP/1.1 ${e.code} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }

  return Object.assign(handle, { upgrade, clientError });

  /**
   * Every request ends here, whatever its line, headers or body: failures are
   * Statuses, and an exception nothing else caught is logged and answered 500
   * (or the connection dropped, when the answer had started): never fatal.
   */
  async function handle(req: IncomingMessage, res: ServerResponse, upgrade?: Upgrade) {
    let pretty = false;
    try {
      pretty = await serve(req, res, upgrade);
    } catch (e) {
      try {
        writeError(res, e, pretty);
      } catch (e2) {
        console.error(e2);
        res.destroy();
      }
    }
  }

  /** Answers one request; throws its failure. Returns whether errors are written pretty. */
  async function serve(req: IncomingMessage, res: ServerResponse, upgrade?: Upgrade): Promise<boolean> {
    // As kube-apiserver: no answer is to be read as another type than it declares.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const cors = ctx.corsHeaders?.(req);
    if (cors) for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (!acceptHost(req.headers.host)) throw hostRefused(req);
    if (req.method === 'OPTIONS' && cors) {
      res.writeHead(204).end();
      return false;
    }
    const { path, query } = requestTarget(req.url);
    const pretty = wantsPretty(req, query);
    offerCompression(req, res);
    try {
      await route(req, res, path, query, pretty, upgrade);
    } catch (e) {
      writeError(res, e, pretty);
    }
    return pretty;
  }

  async function route(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, pretty: boolean, upgrade?: Upgrade) {
    if (await serveHealth(path, query, ctx.healthChecks ?? [], res)) return;
    const isApi = path === '/api' || path === '/apis' || path === '/version' || path.startsWith('/api/') || path.startsWith('/apis/') || path.startsWith('/openapi') || path === LAST_CHANGE_PATH;
    if (!isApi) {
      // The app's files and routes; any other path is kube-apiserver's 404 Status, not the app.
      const decoded = decodeURIComponent(path);
      if (ctx.fallback?.(req, res, decoded, isAppPath(decoded, ctx.kinds))) return;
      throw errors.notFoundPath();
    }
    await api(req, res, path, query, pretty, upgrade);
  }
}

/**
 * The handler while the server loads its store: health says not ready, the
 * app's files are served (the app then waits for the API), and every API
 * request is answered 429 with Retry-After, which client-go and the app retry.
 */
export function startingHandler(ctx: FrontContext) {
  return frontDoor(ctx, async (req, res, path, _query, pretty) => {
    // The version holds no cluster data and needs no store: kubectl version works already.
    if (path === '/version' && req.method === 'GET') return writeBody(res, 200, ctx.version, { pretty });
    // kube-apiserver's answer while a resource's watch cache is not yet filled (ResilientWatchCacheInitialization).
    throw errors.tooManyRequests('storage is (re)initializing');
  });
}

export function createHandler(ctx: HandlerContext) {
  // Discovery lists the stored kinds and the storage-less authorization reviews.
  const served: readonly discovery.ServedResource[] = [...ctx.kinds, ...reviewResources];
  const gvs = discovery.groupVersions(served);
  const sockets = new WatchSockets();
  const bodies = new BodyDecoder();
  ctx.onClose(() => bodies.stop());
  const limits: Limits = { ...DEFAULT_LIMITS, ...ctx.limits };
  const inflight = new InflightLimiter(limits);

  return frontDoor(ctx, routeApi);

  async function routeApi(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, pretty: boolean, upgrade?: Upgrade) {
    // authenticate
    if (upgrade && isWebSocketRequest(req)) {
      // Browsers cannot set Authorization on a WebSocket; the token may come as a subprotocol.
      const { token, error } = bearerTokenFromProtocols(req);
      if (error) throw errors.unauthorized();
      if (token && !req.headers.authorization) req.headers.authorization = `Bearer ${token}`;
    }
    const user = ctx.authenticator.authenticate(req);
    if (!user) {
      // The version, like health, holds no cluster data: clients may ask before they sign in.
      if (path === '/version' && req.method === 'GET') return writeBody(res, 200, ctx.version, { pretty });
      throw errors.unauthorized();
    }

    const info = resolveRequest(path);
    const method = (req.method ?? 'GET').toLowerCase();
    // Watches are long-running: no slot among the requests in flight, no deadline but their own.
    const limitVerb = (info && verbOf(req.method ?? 'GET', info, query)) || method;
    if (ctx.auditor) audit(req, res, user, limitVerb, path, info);
    if (limitVerb === 'watch') return await routeAuthenticated(req, res, path, query, pretty, user, info, upgrade);
    const timeoutMs = requestDeadlineMs(query.get('timeout'), limits.requestTimeoutMs);
    const release = inflight.admit(user, limitVerb);
    const deadline = timeoutMs > 0 ? setTimeout(() => {
      // The request goes on (a write may still land, as upstream); its answer is this
      // Status, and its slot is free (a client that stalls its body holds none).
      release();
      if (res.headersSent) return void res.destroy();
      // What is left of the request (a body still arriving) cannot be told from the next one
      // (HTTP/2 streams are apart already and forbid the header).
      if (req.httpVersionMajor < 2) res.setHeader('Connection', 'close');
      writeError(res, requestTimedOut(), pretty);
    }, timeoutMs) : undefined;
    try {
      await routeAuthenticated(req, res, path, query, pretty, user, info, upgrade);
    } finally {
      clearTimeout(deadline);
      release();
    }
  }

  async function routeAuthenticated(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, pretty: boolean, user: UserInfo, info: RequestInfo | undefined, upgrade?: Upgrade) {
    if (!info) {
      // Non-resource requests (discovery, /version, /openapi) are authorized by path, as upstream.
      authorize(user, { verb: (req.method ?? 'GET').toLowerCase(), group: '', resource: '', path }, undefined);
      if (path === '/version') return writeBody(res, 200, ctx.version, { pretty });
      if (path.startsWith('/openapi')) return serveOpenAPI(path, req, res);
      if (path === LAST_CHANGE_PATH && ctx.auditor) return serveLastChange(query, res, pretty);
      return serveDiscovery(path, req, res, pretty);
    }

    const review = reviewResourceFor(info.group, info.version, info.resource);
    if (review) return await serveReview(review, user, info, req, res, pretty);

    const kind = kindFor(info.group, info.version, info.resource);
    if (!kind) return notFoundText(res);
    const store = ctx.stores.get(kind)!;
    const verb = verbOf(req.method ?? 'GET', info, query);
    if (!verb) throw errors.methodNotAllowed(kind, req.method ?? '');
    checkScope(kind, info, verb);

    authorize(user, { verb, group: kind.group, resource: kind.plural, subresource: info.subresource, namespace: info.namespace, name: info.name }, kind);

    const rep = negotiate(req);
    if (verb === 'watch') return await serveWatch(kind, store, info, req, res, query, rep, upgrade);
    await serveResource(verb, kind, store, info, req, res, query, rep, pretty, user);
  }

  /** Who last changed one object, from the audit log (this server's own extension; absent without the log). */
  function serveLastChange(query: URLSearchParams, res: ServerResponse, pretty: boolean) {
    const name = query.get('name');
    const resource = query.get('resource');
    if (!name || !resource) throw errors.badRequest('resource and name are required');
    const change = ctx.auditor!.lastChange({ group: query.get('group') ?? '', resource, namespace: query.get('namespace') || undefined, name });
    if (!change) throw new ApiError(404, 'NotFound', `no change of ${resource} "${name}" is in the audit log`);
    writeBody(res, 200, change, { pretty });
  }

  /** Starts the request's audit record (when the policy selects it), completed when the answer is. */
  function audit(req: IncomingMessage, res: ServerResponse, user: UserInfo, verb: string, path: string, info: RequestInfo | undefined) {
    // As upstream's RequestInfo, a namespace is its own namespace.
    const namespace = info?.resource === 'namespaces' && info.name && !info.namespace ? info.name : info?.namespace;
    const resource = info && { group: info.group, resource: info.resource, subresource: info.subresource, namespace, name: info.name };
    const objectRef = info && {
      resource: info.resource,
      ...(namespace ? { namespace } : {}),
      ...(info.name ? { name: info.name } : {}),
      apiGroup: info.group,
      apiVersion: info.version,
      ...(info.subresource ? { subresource: info.subresource } : {}),
    };
    const record = ctx.auditor!.begin(req, res, user, impersonatorOf.get(user), { user, verb, path, resource, objectRef });
    if (!record) return;
    audits.set(req, record);
    const complete = () => record.responseComplete(res.statusCode, String(res.getHeader('content-type') ?? ''));
    res.on('finish', complete);
    res.on('close', complete);
  }

  /** The pipeline's authorization step: a denied request is a 403 naming the user, verb and resource. */
  function authorize(user: UserInfo, attrs: Attributes, kind: Pick<KindDefinition, 'group' | 'plural' | 'kind'> | undefined) {
    const d = ctx.authorizer.decide(user, attrs);
    if (d.allowed) return;
    const message = forbiddenMessage(user, attrs, d.reason);
    if (!kind) throw new ApiError(403, 'Forbidden', `forbidden: ${message}`);
    throw errors.forbidden(kind, attrs.name ?? '', message);
  }

  /** POST of a SelfSubjectAccessReview or SelfSubjectRulesReview: answered, not stored (201 as any create). */
  async function serveReview(review: ReviewResource, user: UserInfo, info: RequestInfo, req: IncomingMessage, res: ServerResponse, pretty: boolean) {
    if ((info.namespace !== undefined) !== (review.scope === 'Namespaced')) throw new NoRoute();
    if (info.name || info.subresource || info.legacyWatch) throw new NoRoute();
    if (req.method !== 'POST') throw errors.methodNotAllowed(review, (req.method ?? '').toLowerCase());
    authorize(user, { verb: 'create', group: review.group, resource: review.plural, namespace: info.namespace }, review);
    const rep = negotiate(req);
    const { value: body } = await bodies.run({ op: 'parse', kind: { kind: review.kind, version: review.version }, contentType: mediaType(req), body: await readBody(req) });
    writeBody(res, 201, review.create(user, body, ctx.authorizer, info.namespace), { pretty, yaml: rep.type === 'yaml' });
  }

  function serveOpenAPI(path: string, req: IncomingMessage, res: ServerResponse) {
    if (path === '/openapi/v2') return serveOpenAPIv2(req, res);
    if (path === '/openapi/v3') return writeBody(res, 200, ctx.openapi.index);
    const doc = ctx.openapi.byPath.get(path.slice('/openapi/v3/'.length));
    if (!doc) return notFoundText(res);
    writeBody(res, 200, doc.json, { headers: { 'Cache-Control': 'public, immutable', ETag: `"${doc.hash}"` } });
  }

  /**
   * Swagger 2.0 as kube-openapi's handler serves it: JSON, or gnostic protobuf
   * (what client-go's OpenAPISchema asks for, under either protobuf name), one
   * ETag (of the JSON) for both, 304 when the client has it, 406 otherwise.
   */
  function serveOpenAPIv2(req: IncomingMessage, res: ServerResponse) {
    const { json, proto, etag } = ctx.openapi.v2;
    const type = acceptedMediaType(req, ['application/json', OPENAPI_V2_PROTOBUF_DEPRECATED, OPENAPI_V2_PROTOBUF]);
    if (!type) throw errors.notAcceptable();
    const headers = { ETag: `"${etag}"`, Vary: 'Accept' };
    if (req.headers['if-none-match'] === headers.ETag) return void res.writeHead(304, headers).end();
    const body = type === 'application/json' ? Buffer.from(json) : proto;
    res.writeHead(200, { ...headers, 'Content-Type': type === 'application/json' ? type : OPENAPI_V2_PROTOBUF, 'Content-Length': body.length });
    res.end(body);
  }

  function serveDiscovery(path: string, req: IncomingMessage, res: ServerResponse, pretty: boolean) {
    if (path === '/api' || path === '/apis') {
      const rep = negotiate(req, true);
      if (rep.type === 'aggregatedDiscovery') {
        const body = JSON.stringify(discovery.aggregatedDiscovery(served, path === '/api'));
        const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
        const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'public' };
        if (req.headers['if-none-match'] === etag) {
          res.writeHead(304, headers).end();
          return;
        }
        return writeBody(res, 200, body, { pretty, contentType: discovery.AGGREGATED_DISCOVERY_TYPE, headers });
      }
      const host = req.headers.host ?? '127.0.0.1';
      return writeBody(res, 200, path === '/api' ? discovery.apiVersions(host) : discovery.apiGroupList(served), { pretty, yaml: rep.type === 'yaml' });
    }
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = discovery.apiGroupDoc(served, parts[1]);
      return doc ? writeBody(res, 200, doc, { pretty }) : notFoundText(res);
    }
    const gv = parts[0] === 'api' && parts.length === 2 ? gvs.find((g) => !g.group && g.version === parts[1])
      : parts[0] === 'apis' && parts.length === 3 ? gvs.find((g) => g.group === parts[1] && g.version === parts[2]) : undefined;
    if (!gv) return notFoundText(res);
    writeBody(res, 200, discovery.apiResourceList(gv), { pretty });
  }

  function writeObject(res: ServerResponse, code: number, kind: KindDefinition, obj: KubeObject | CachedObject, rep: Representation, pretty: boolean, query: URLSearchParams, warnings: string[] = []) {
    const headers = warningHeaders(warnings);
    // From the cache, the object's cached bytes are written (and a Table row's metadata is read from them).
    const cached = 'key' in obj && 'object' in obj ? (obj as CachedObject) : undefined;
    const o = cached?.object ?? (obj as KubeObject);
    if (rep.type === 'table') {
      if (o.kind === 'Status') return writeBody(res, code, o, { pretty, headers });
      const include = parseIncludeObject(query.get('includeObject'));
      const meta = { resourceVersion: o.metadata.resourceVersion };
      if (cached && !pretty) return writeTable(res, code, kind, [cached], include, rep.version, meta, headers);
      return writeBody(res, code, toTable(kind, [o], include, rep.version, meta), { pretty, headers });
    }
    if (rep.type === 'partial') {
      if (!cached || pretty) return writeBody(res, code, partialObjectMetadata(o, rep.version), { pretty, headers });
      const chunks: JSONChunk[] = [];
      partialChunks(cached, rep.version, chunks);
      return writeBody(res, code, joinChunks(chunks), { headers });
    }
    if (rep.type === 'partialList') {
      throw new ApiError(406, 'NotAcceptable', `you requested PartialObjectMetadataList, but the requested object is not a list (${apiVersionOf(kind)}, Kind=${kind.kind})`);
    }
    const body = cached ? bytesOf(cached) : o;
    writeBody(res, code, body, { pretty, yaml: rep.type === 'yaml', headers });
  }

  /** A list of objects as JSON, pretty JSON or YAML, each written in slices of the event loop where its items' text is made as it goes (watch/encodings.ts). */
  function writeObjects(res: ServerResponse, kind: KindDefinition, page: ListPage, rep: Representation, pretty: boolean, headers: Record<string, string | string[]> = {}) {
    const env = { listKind: kind.listKind, apiVersion: apiVersionOf(kind), ...page };
    if (rep.type === 'yaml') return writeYAMLList(res, env, page.items, headers);
    return (pretty ? writePrettyList : writeList)(res, env, page.items, headers);
  }

  async function serveResource(
    verb: string,
    kind: KindDefinition,
    store: Store,
    info: RequestInfo,
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
    rep: Representation,
    pretty: boolean,
    user: UserInfo,
  ) {
    const ns = info.namespace;
    const warnings: string[] = [];
    switch (verb) {
      case 'get':
        return writeObject(res, 200, kind, await store.getAt(ns, info.name!, parseResourceVersion(query.get('resourceVersion'))), rep, pretty, query);
      case 'list': {
        const q = parseListQuery(kind, query);
        if (rep.type === 'partial') {
          throw new ApiError(406, 'NotAcceptable', `you requested PartialObjectMetadata, but the requested object is a list (${apiVersionOf(kind)}, Kind=${kind.listKind})`);
        }
        const page = await store.list(ns, q);
        const listMeta = listMetadata(page);
        if (rep.type === 'table') {
          const include = parseIncludeObject(query.get('includeObject'));
          if (!pretty) return writeTable(res, 200, kind, page.items, include, rep.version, listMeta);
          return writePrettyTable(res, kind, page.items, include, rep.version, listMeta);
        }
        if (rep.type === 'partialList') {
          if (!pretty) return writeChunks(res, 200, await partialListChunks(page.items, rep.version, listMeta));
          return writePrettyPartialList(res, page.items, rep.version, listMeta);
        }
        return writeObjects(res, kind, page, rep, pretty);
      }
      case 'create': {
        const write = writeContext(query, 'CreateOptions', warnings, user, req);
        const body = await readBody(req);
        if (info.subresource) {
          const action = subresourceActions[info.subresource];
          if (!action) throw errors.methodNotAllowed(kind, 'create');
          const { value } = await bodies.run({ op: 'parse', kind: { kind: kind.kind, version: kind.version }, contentType: mediaType(req), body });
          const status = await action(store, ns, info.name!, value, write);
          return writeBody(res, status.code ?? 201, status, { pretty, headers: warningHeaders(warnings) });
        }
        const decoded = await bodies.run({ op: 'decode', kind, contentType: mediaType(req), body, fieldValidation: write.fieldValidation, record: { manager: write.fieldManager! } });
        warnings.push(...decoded.warnings);
        const recorded = decoded.recorded && { revision: 0, ...decoded.recorded };
        const created = await store.create(ns, decoded.value as KubeObject, { ...write, large: decoded.large, recorded });
        audits.get(req)?.objectName(created.metadata.name);
        return writeObject(res, 201, kind, created, rep, pretty, query, warnings);
      }
      case 'update': {
        const write = writeContext(query, 'UpdateOptions', warnings, user, req);
        const body = await readBody(req);
        // The fields are recorded against the object as it is now; the store records them again should it move meanwhile.
        const live = store.peek(ns, info.name!);
        const record = live && { manager: write.fieldManager!, subresource: info.subresource, live };
        const decoded = await bodies.run({ op: 'decode', kind, contentType: mediaType(req), body, fieldValidation: write.fieldValidation, record });
        warnings.push(...decoded.warnings);
        const recorded = live && decoded.recorded && { revision: live.revision, ...decoded.recorded };
        const updated = await store.update(ns, info.name!, decoded.value as KubeObject, { ...write, large: decoded.large, recorded }, info.subresource);
        return writeObject(res, 200, kind, updated, rep, pretty, query, warnings);
      }
      case 'patch': {
        const type = mediaType(req);
        if (type === APPLY_PATCH_TYPE) return await serveApply(kind, store, info, req, res, query, rep, pretty, user);
        if (!SUPPORTED_PATCH_TYPES.includes(type)) {
          throw errors.unsupportedMediaType(PATCH_TYPES.includes(type) ? SUPPORTED_PATCH_TYPES : PATCH_TYPES);
        }
        if (query.get('force') !== null) {
          throw errors.invalidOptions('PatchOptions', [fieldErrors.forbidden('force', 'may not be specified for non-apply patch')]);
        }
        const write = writeContext(query, 'PatchOptions', warnings, user, req);
        const body = await readBody(req);
        const patched = await store.guaranteedUpdateFrom(ns, info.name!, async (current) => {
          const record = { manager: write.fieldManager!, subresource: info.subresource };
          const decoded = await bodies.run({ op: 'patch', kind, contentType: type, body, fieldValidation: write.fieldValidation, current, name: info.name!, record });
          warnings.push(...decoded.warnings);
          write.large = decoded.large;
          write.recorded = decoded.recorded && { revision: current.revision, ...decoded.recorded };
          return decoded.value as KubeObject;
        }, write, info.subresource);
        return writeObject(res, 200, kind, patched, rep, pretty, query, warnings);
      }
      case 'delete': {
        const opts = parseDeleteOptions(parseDeleteBody(await readBody(req)), query);
        const { object, deleted } = await store.delete(ns, info.name!, opts, { dryRun: opts.dryRun, warnings, user });
        if (!deleted) return writeObject(res, opts.orphanDependents === false ? 202 : 200, kind, object, rep, pretty, query, warnings);
        if (kind.strategy.returnDeletedObject) return writeObject(res, 200, kind, object, rep, pretty, query, warnings);
        return writeBody(res, 200, successStatus(kind, object.metadata.name!, object.metadata.uid), { pretty, headers: warningHeaders(warnings) });
      }
      case 'deletecollection': {
        const q = parseListQuery(kind, query);
        const opts = parseDeleteOptions(parseDeleteBody(await readBody(req)), query);
        const items = await store.deleteCollection(ns, q, opts, { dryRun: opts.dryRun, warnings, user });
        return writeObjects(res, kind, { items, resourceVersion: store.currentRevision() }, rep, pretty, warningHeaders(warnings));
      }
    }
  }

  /** The options of a write, and its author for admission and managed fields. */
  function writeContext(query: URLSearchParams, optionsKind: string, warnings: string[], user: UserInfo, req: IncomingMessage): WriteContext & { fieldValidation: FieldValidation } {
    const fieldManager = query.get('fieldManager') ?? '';
    const invalid = validateFieldManager(fieldManager);
    if (invalid.length) throw errors.invalidOptions(optionsKind, invalid);
    return {
      dryRun: parseDryRun(query, optionsKind),
      fieldValidation: parseFieldValidation(query.get('fieldValidation'), optionsKind),
      warnings,
      user,
      fieldManager: fieldManager || defaultFieldManager(req.headers['user-agent'] ?? ''),
    };
  }

  /** PATCH with application/apply-patch+yaml: server-side apply (fieldManager required; force takes others' fields). */
  async function serveApply(kind: KindDefinition, store: Store, info: RequestInfo, req: IncomingMessage, res: ServerResponse, query: URLSearchParams, rep: Representation, pretty: boolean, user: UserInfo) {
    const warnings: string[] = [];
    const write = writeContext(query, 'PatchOptions', warnings, user, req);
    if (!query.get('fieldManager')) throw errors.invalidOptions('PatchOptions', [fieldErrors.required('fieldManager', 'is required for apply patch')]);
    // A *bool query parameter: anything but "0" and "false" (any case) is true, as runtime.Convert_Slice_string_To_Pointer_bool.
    const forceRaw = query.get('force');
    const force = forceRaw !== null && forceRaw !== '0' && forceRaw.toLowerCase() !== 'false';
    const body = await readBody(req);
    const options: ApplyOptions = { namespace: info.namespace, name: info.name!, manager: write.fieldManager!, force, fieldValidation: write.fieldValidation, subresource: info.subresource };
    const merge = async (live: CachedObject | undefined) => {
      const r = await bodies.run({ op: 'apply', kind, body, current: live, options });
      warnings.push(...r.warnings);
      return { object: r.value as KubeObject, large: r.large };
    };
    const { object, created } = await serverSideApply(store, { ...options, merge }, write);
    return writeObject(res, created ? 201 : 200, kind, object, rep, pretty, query, warnings);
  }

  async function serveWatch(kind: KindDefinition, store: Store, info: RequestInfo, req: IncomingMessage, res: ServerResponse, query: URLSearchParams, rep: Representation, upgrade?: Upgrade) {
    // Option errors are HTTP errors; once the stream is open, errors are ERROR events.
    const prepared = prepareWatch(kind, store, info, query, rep);
    let sink: WatchSink;
    if (upgrade && isWebSocketRequest(req)) {
      if (!originAllowed(req, ctx.webSocketOrigins ?? [])) {
        throw new ApiError(403, 'Forbidden', `origin ${req.headers.origin} is not allowed to open a WebSocket`);
      }
      res.detachSocket(upgrade.socket as never);
      sink = await sockets.accept(req, upgrade.socket, upgrade.head, limits.watchBufferBytes);
      const record = audits.get(req);
      if (record) {
        record.responseStarted(101);
        sink.onGone(() => record.responseComplete(101));
      }
    } else {
      // Chunked over HTTP/1.1 (no length given), DATA frames over HTTP/2.
      sink = chunkedWatchSink(res, limits.watchBufferBytes);
      audits.get(req)?.responseStarted(200);
    }
    await runWatch(prepared, sink, ctx.onClose, limits.minRequestTimeoutSeconds);
  }
}

function verbOf(method: string, info: RequestInfo, query: URLSearchParams): string | undefined {
  const watch = info.legacyWatch || queryBool(query.get('watch'));
  if (info.subresource) {
    if (method === 'GET') return 'get';
    if (method === 'PUT') return 'update';
    if (method === 'PATCH') return 'patch';
    if (method === 'POST') return 'create';
    return undefined;
  }
  switch (method) {
    case 'GET':
      if (info.legacyWatch) return 'watch';
      return info.name ? 'get' : watch ? 'watch' : 'list';
    case 'POST':
      return info.name ? undefined : 'create';
    case 'PUT':
      return info.name ? 'update' : undefined;
    case 'PATCH':
      return info.name ? 'patch' : undefined;
    case 'DELETE':
      return info.name ? 'delete' : 'deletecollection';
  }
  return undefined;
}

function checkScope(kind: KindDefinition, info: RequestInfo, verb: string) {
  if (kind.scope === 'Cluster' && info.namespace !== undefined) throw new NoRoute();
  if (kind.scope === 'Namespaced' && info.namespace === undefined && verb !== 'list' && verb !== 'watch') {
    throw errors.methodNotAllowed(kind, verb);
  }
  if (info.subresource && !kind.subresources[info.subresource]) throw new NoRoute();
  if (info.subresource && !kind.subresources[info.subresource].verbs.includes(verb)) throw errors.methodNotAllowed(kind, verb);
  if (!info.subresource && !kind.verbs.includes(verb)) throw errors.methodNotAllowed(kind, verb);
}
