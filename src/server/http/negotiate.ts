// Content negotiation: which representation a client asked for (JSON, YAML,
// Table, metadata only, aggregated discovery) and how bodies are written.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringify as toYAML } from 'yaml';
import { errors } from './status.ts';
import { parseGoBool } from '../../lib/queryparams.ts';
import { writeChunks, YAML_OPTIONS } from '../watch/encodings.ts';

/** The meta.k8s.io version a Table or PartialObjectMetadata is asked in; the answer carries it as its apiVersion. */
export type MetaVersion = 'v1' | 'v1beta1';

export type Representation =
  | { type: 'json' }
  | { type: 'yaml' }
  | { type: 'table'; version: MetaVersion }
  | { type: 'partial'; version: MetaVersion }
  | { type: 'partialList'; version: MetaVersion }
  | { type: 'aggregatedDiscovery' };

interface Clause {
  mediaType: string;
  params: Record<string, string>;
}

function parseAccept(header: string | undefined): Clause[] {
  if (!header) return [{ mediaType: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type, ...rest] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of rest) {
      const i = p.indexOf('=');
      if (i > 0) params[p.slice(0, i).trim()] = p.slice(i + 1).trim();
    }
    return { mediaType: type.toLowerCase(), params };
  });
}

/**
 * The first of `offered` (full media types) that the most preferred Accept
 * clause admits, `type/*` and `*` included, as goautoneg orders clauses (by q);
 * undefined when none (a 406).
 */
export function acceptedMediaType(req: IncomingMessage, offered: readonly string[]): string | undefined {
  const q = (c: Clause) => (c.params.q === undefined ? 1 : Number(c.params.q) || 0);
  const clauses = parseAccept(req.headers.accept).filter((c) => q(c) > 0).sort((a, b) => q(b) - q(a));
  for (const { mediaType } of clauses) {
    const [type, sub] = mediaType.split('/');
    const found = offered.find((o) => (type === '*' || o.split('/')[0] === type) && (sub === '*' || sub === undefined || o.split('/')[1] === sub));
    if (found) return found;
  }
  return undefined;
}

/** The first clause the server can produce wins; 406 when none. */
export function negotiate(req: IncomingMessage, allowAggregated = false): Representation {
  for (const c of parseAccept(req.headers.accept)) {
    const { mediaType, params } = c;
    if (mediaType === 'application/yaml') return { type: 'yaml' };
    if (mediaType !== 'application/json' && mediaType !== '*/*' && mediaType !== 'application/*') continue;
    if (!params.as) return { type: 'json' };
    // kube-apiserver transforms to meta.k8s.io v1 and v1beta1 only; a clause asking another version (or none) is passed over.
    const version = params.g === 'meta.k8s.io' && (params.v === 'v1' || params.v === 'v1beta1') ? params.v : undefined;
    if (version && params.as === 'Table') return { type: 'table', version };
    if (version && params.as === 'PartialObjectMetadata') return { type: 'partial', version };
    if (version && params.as === 'PartialObjectMetadataList') return { type: 'partialList', version };
    if (allowAggregated && params.as === 'APIGroupDiscoveryList' && params.g === 'apidiscovery.k8s.io' && params.v === 'v2') {
      return { type: 'aggregatedDiscovery' };
    }
  }
  throw errors.notAcceptable();
}

/** Indented output for ?pretty=true and for people using curl or a browser. */
export function wantsPretty(req: IncomingMessage, query: URLSearchParams): boolean {
  const p = query.get('pretty');
  // strconv.ParseBool, a value it refuses being false; an empty one is not asked for (isPrettyPrint).
  if (p) return parseGoBool(p) ?? false;
  const ua = req.headers['user-agent'] ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

export interface WriteOptions {
  pretty?: boolean;
  yaml?: boolean;
  headers?: Record<string, string | string[]>;
  contentType?: string;
}

const NEWLINE = Buffer.from('\n');

/** Writes a JSON (or YAML) body; `body` may be pre-serialised JSON, as a string or as UTF-8 bytes (a cached encoding). */
export function writeBody(res: ServerResponse, code: number, body: unknown, opts: WriteOptions = {}) {
  if (Buffer.isBuffer(body)) {
    if (opts.pretty || opts.yaml) return writeBody(res, code, body.toString(), opts);
    // The cached bytes go out as they are, the newline after them: no re-encoding (writeChunks copies only a small body).
    const headers = opts.contentType ? { 'Content-Type': opts.contentType, ...opts.headers } : opts.headers;
    return writeChunks(res, code, { chunks: [body, NEWLINE], length: body.length + 1 }, headers);
  }
  let text: string;
  let type = opts.contentType ?? 'application/json';
  if (opts.yaml) {
    text = toYAML(typeof body === 'string' ? JSON.parse(body) : body, YAML_OPTIONS);
    type = 'application/yaml';
  } else if (typeof body === 'string') {
    text = opts.pretty ? JSON.stringify(JSON.parse(body), null, 2) + '\n' : body + '\n';
  } else {
    text = (opts.pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body)) + '\n';
  }
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), ...opts.headers });
  res.end(text);
}

/** `Warning: 299 - "text"` headers, one per warning, as kube-apiserver sends them. */
export function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  if (!warnings.length) return {};
  return { Warning: [...new Set(warnings)].map((w) => `299 - ${JSON.stringify(w)}`) };
}
