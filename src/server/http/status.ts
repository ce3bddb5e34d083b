// Every failure the server returns is a metav1.Status. ApiError carries one
// through the pipeline; the catalogue below builds the upstream texts.
import { aggregateMessage, type FieldError, errorBody } from '../../lib/field.ts';
import { groupKindOf, groupResourceOf, type KindDefinition } from '../../kinds/kind.ts';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string | undefined,
    message: string,
    readonly details?: StatusDetails,
    readonly metadata: { continue?: string } = {},
  ) {
    super(message);
  }

  toStatus(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: this.metadata, status: 'Failure', message: this.message };
    if (this.reason) s.reason = this.reason;
    if (this.details && Object.keys(this.details).length) s.details = this.details;
    s.code = this.code;
    return s;
  }
}

type KindRef = Pick<KindDefinition, 'group' | 'plural' | 'kind'>;

const resourceDetails = (k: KindRef, name: string): StatusDetails => {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (k.group) d.group = k.group;
  d.kind = k.plural;
  return d;
};

export const errors = {
  notFound: (k: KindRef, name: string) =>
    new ApiError(404, 'NotFound', `${groupResourceOf(k)} "${name}" not found`, resourceDetails(k, name)),
  alreadyExists: (k: KindRef, name: string, deleting = false) =>
    new ApiError(
      409,
      'AlreadyExists',
      `${deleting ? 'object is being deleted: ' : ''}${groupResourceOf(k)} "${name}" already exists`,
      resourceDetails(k, name),
    ),
  conflict: (k: KindRef, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again') =>
    new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceOf(k)} "${name}": ${why}`, resourceDetails(k, name)),
  invalid: (k: Pick<KindDefinition, 'group' | 'kind'>, name: string, errs: readonly FieldError[]) => {
    const details: StatusDetails = {};
    if (name) details.name = name;
    if (k.group) details.group = k.group;
    details.kind = k.kind;
    details.causes = errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
    return new ApiError(422, 'Invalid', `${groupKindOf(k)} "${name}" is invalid: ${aggregateMessage(errs)}`, details);
  },
  /** Invalid options (ListOptions, DeleteOptions, …): `ListOptions.meta.k8s.io "" is invalid: …`. */
  invalidOptions: (what: string, errs: readonly FieldError[]) =>
    new ApiError(422, 'Invalid', `${what}.meta.k8s.io "" is invalid: ${aggregateMessage(errs)}`, {
      group: 'meta.k8s.io',
      kind: what,
      causes: errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field })),
    }),
  /** kube-apiserver's answer for a path no handler serves (its NotFound handler). */
  notFoundPath: () => new ApiError(404, 'NotFound', 'the server could not find the requested resource'),
  badRequest: (message: string) => new ApiError(400, 'BadRequest', message),
  forbidden: (k: KindRef, name: string, why: string) =>
    new ApiError(403, 'Forbidden', `${groupResourceOf(k)}${name ? ` "${name}"` : ''} is forbidden: ${why}`, resourceDetails(k, name)),
  methodNotAllowed: (k: KindRef, action: string) =>
    new ApiError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceOf(k)}"`, resourceDetails(k, '')),
  expired: (message: string, continueToken?: string) =>
    new ApiError(410, 'Expired', message, undefined, continueToken ? { continue: continueToken } : {}),
  tooLarge: (message: string) => new ApiError(413, 'RequestEntityTooLarge', message),
  /** An object the storage cannot hold (etcd's request limit upstream). */
  objectTooLarge: (limit: number, bytes?: number) =>
    new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: the object is too large to store${bytes ? ` (${bytes} bytes)` : ''}; the limit is ${limit} bytes`),
  unsupportedMediaType: (accepted: readonly string[]) =>
    new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  notAcceptable: () =>
    new ApiError(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml'),
  /** apierrors.NewTooManyRequests: 429 with the seconds to wait (in Retry-After too, see writeError). */
  tooManyRequests: (message: string, retryAfterSeconds = 1) => new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds }),
  timeout: (message: string, causes?: StatusCause[]) => new ApiError(504, 'Timeout', message, { causes, retryAfterSeconds: 1 }),
  unauthorized: () => new ApiError(401, 'Unauthorized', 'Unauthorized'),
  internal: (message: string) => new ApiError(500, undefined, message),
  namespaceNotFound: (ns: string) =>
    new ApiError(404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' }),
};

export function successStatus(k: KindRef, name: string, uid?: string): Status {
  const details = resourceDetails(k, name);
  if (uid) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
