// authorization.k8s.io/v1 SelfSubjectAccessReview and SelfSubjectRulesReview:
// "may I do this?" and "what may I do here?", asked by the requesting user
// and answered by the authorizer the pipeline uses (`kubectl auth can-i`,
// `kubectl auth can-i --list`); SubjectAccessReview and LocalSubjectAccessReview
// ask it for another user (cluster-wide, or within one namespace). They are create-only and stored nowhere
// (K/pkg/registry/authorization/selfsubjectaccessreview/rest.go,
// K/pkg/registry/authorization/selfsubjectrulesreview/rest.go).
import type { z } from 'zod';
import { NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReview, SelfSubjectRulesReview } from '../../kinds/authorization.ts';
import { SelfSubjectReview, SubjectAccessReview } from '../../kinds/rbac-reviews.ts';
import { fieldErrors, type FieldError } from '../../lib/field.ts';
import { errors } from '../http/status.ts';
import type { UserInfo } from './authn.ts';
import type { Attributes, Authorizer } from './authz.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

/** A resource served without storage: what discovery needs to list it, and how a create is answered. */
export interface ReviewResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  scope: 'Cluster' | 'Namespaced';
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: Record<string, { verbs: string[] }>;
  withoutStorage: true;
  description: string;
  /** Shape of the review (decoding, /openapi/v3). */
  schema: z.ZodType;
  /** The answer to a create: the review with its status filled in (`namespace`: the URL's, for a namespaced review). */
  create(user: UserInfo, body: unknown, authorizer: Authorizer, namespace?: string): Record<string, unknown>;
}

/** JSON null decodes to Go's zero value; the schemas spell that as an absent field. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
}

/** Decodes a review body as the apiserver's decoder would: wrong types are a 400 naming the kind. */
function decode<T extends z.ZodType>(kind: string, schema: T, body: unknown, group = AUTHORIZATION_GROUP): z.infer<T> {
  const fail = (why: string) => errors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${why}`);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw fail('body must be an object');
  const b = body as Record<string, unknown>;
  if ((b.kind !== undefined && b.kind !== '' && b.kind !== kind) || (b.apiVersion !== undefined && b.apiVersion !== '' && b.apiVersion !== `${group}/v1`)) {
    throw fail(`expected ${group}/v1 ${kind}, got ${String(b.apiVersion ?? '')} ${String(b.kind ?? '')}`);
  }
  const r = schema.safeParse(dropNulls(body));
  if (!r.success) {
    const issue = r.error.issues[0];
    throw fail(`${issue.path.join('.')}: ${issue.message}`);
  }
  return r.data;
}

interface AccessReviewBody {
  metadata?: Record<string, unknown>;
  spec?: {
    resourceAttributes?: z.infer<typeof ResourceAttributes>;
    nonResourceAttributes?: z.infer<typeof NonResourceAttributes>;
    user?: string;
    groups?: string[];
    uid?: string;
    extra?: Record<string, string[]>;
  };
}
interface RulesReviewBody {
  spec?: { namespace?: string };
}

/** The object as the apiserver writes it back: metadata as sent, creationTimestamp null (apimachinery before 1.33). */
const envelope = (kind: string, meta: Record<string, unknown> | undefined, group = AUTHORIZATION_GROUP) => ({
  kind,
  apiVersion: `${group}/v1`,
  metadata: { ...(meta ?? {}), creationTimestamp: (meta?.creationTimestamp as string | undefined) ?? null },
});

/** A review: cluster-scoped, create only, never stored (what every one of them shares). */
function review(r: Pick<ReviewResource, 'group' | 'kind' | 'plural' | 'description' | 'schema' | 'create'> & Partial<Pick<ReviewResource, 'scope'>>): ReviewResource {
  return { version: 'v1', singular: r.kind.toLowerCase(), scope: 'Cluster', verbs: ['create'], shortNames: [], categories: [], subresources: {}, withoutStorage: true, ...r };
}

const dropEmpty = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== null)) as T;

const selfSubjectAccessReviews = review({
  group: AUTHORIZATION_GROUP,
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  description: 'Asks whether the requesting user may perform an action.',
  schema: SelfSubjectAccessReview,
  create(user, body, authorizer) {
    const review = decode(this.kind, SelfSubjectAccessReview, body) as AccessReviewBody;
    return accessReview(this.kind, review, user, authorizer, []);
  },
});

/** The shared half of SelfSubjectAccessReview and SubjectAccessReview: validate, ask the authorizer, echo. */
function accessReview(kind: string, review: AccessReviewBody, user: UserInfo, authorizer: Authorizer, extraErrors: FieldError[]) {
  const spec = review.spec ?? {};
  const res = spec.resourceAttributes;
  const nonRes = spec.nonResourceAttributes;
  const errs: FieldError[] = [...extraErrors];
  if (res && nonRes) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', nonRes, 'cannot be specified in combination with resourceAttributes'));
  if (!res && !nonRes) errs.push(fieldErrors.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (errs.length) throw errors.invalid({ group: AUTHORIZATION_GROUP, kind }, '', errs);

  const attrs: Attributes = res
    ? {
        verb: res.verb ?? '',
        group: res.group ?? '',
        resource: res.resource ?? '',
        subresource: res.subresource || undefined,
        namespace: res.namespace || undefined,
        name: res.name || undefined,
      }
    : { verb: nonRes!.verb ?? '', group: '', resource: '', path: nonRes!.path ?? '' };
  const d = authorizer.decide(user, attrs);
  const status: Record<string, unknown> = { allowed: d.allowed };
  if (d.denied) status.denied = true;
  if (d.reason) status.reason = d.reason;
  if (d.evaluationError) status.evaluationError = d.evaluationError;
  const echoed: Record<string, unknown> = {};
  if (res) echoed.resourceAttributes = dropEmpty(res);
  if (nonRes) echoed.nonResourceAttributes = dropEmpty(nonRes);
  for (const k of ['user', 'groups', 'uid', 'extra'] as const) if (spec[k] !== undefined) echoed[k] = spec[k];
  return { ...envelope(kind, review.metadata), spec: echoed, status };
}

const subjectAccessReviews = review({
  group: AUTHORIZATION_GROUP,
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  description: 'Asks whether a given user may perform an action.',
  schema: SubjectAccessReview,
  create(_requester, body, authorizer) {
    const review = decode(this.kind, SubjectAccessReview, body) as AccessReviewBody;
    const spec = review.spec ?? {};
    const errs: FieldError[] = [];
    if (!spec.user && !spec.groups?.length) errs.push(fieldErrors.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    const subject: UserInfo = { name: spec.user ?? '', uid: spec.uid || undefined, groups: spec.groups ?? [], extra: spec.extra };
    return accessReview(this.kind, review, subject, authorizer, errs);
  },
});

const localSubjectAccessReviews = review({
  group: AUTHORIZATION_GROUP,
  kind: 'LocalSubjectAccessReview',
  plural: 'localsubjectaccessreviews',
  scope: 'Namespaced',
  description: 'Asks whether a given user may perform an action in one namespace (the one it is created in).',
  schema: SubjectAccessReview,
  create(_requester, body, authorizer, namespace) {
    const review = decode(this.kind, SubjectAccessReview, body) as AccessReviewBody;
    const spec = review.spec ?? {};
    const meta = review.metadata ?? {};
    // As the create handler: the object's namespace is the URL's, or refused.
    if (meta.namespace && meta.namespace !== namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    const errs: FieldError[] = [];
    if (!spec.user && !spec.groups?.length) errs.push(fieldErrors.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    const { namespace: _ns, creationTimestamp: _ct, managedFields: _mf, ...rest } = meta;
    if (Object.keys(rest).length) errs.push(fieldErrors.invalid('metadata', JSON.stringify(meta), 'must be empty except for namespace'));
    if (spec.nonResourceAttributes) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', JSON.stringify(spec.nonResourceAttributes), 'disallowed on this kind of request'));
    if (errs.length) throw errors.invalid({ group: AUTHORIZATION_GROUP, kind: this.kind }, '', errs);
    // A review in one namespace answers for that namespace only.
    const attrs = spec.resourceAttributes;
    if (attrs?.namespace && attrs.namespace !== namespace) throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
    const scoped = { ...review, metadata: { ...meta, namespace }, spec: { ...spec, resourceAttributes: attrs && { ...attrs, namespace } } };
    const subject: UserInfo = { name: spec.user ?? '', uid: spec.uid || undefined, groups: spec.groups ?? [], extra: spec.extra };
    return accessReview(this.kind, scoped, subject, authorizer, []);
  },
});

const selfSubjectReviews = review({
  group: AUTHENTICATION_GROUP,
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  description: 'Tells the requesting user who the server takes them for (`kubectl auth whoami`).',
  schema: SelfSubjectReview,
  create(user, body) {
    const review = decode(this.kind, SelfSubjectReview, body, AUTHENTICATION_GROUP) as { metadata?: Record<string, unknown> };
    const userInfo: Record<string, unknown> = { username: user.name };
    if (user.uid) userInfo.uid = user.uid;
    if (user.groups.length) userInfo.groups = user.groups;
    if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
    return { ...envelope(this.kind, review.metadata, AUTHENTICATION_GROUP), status: { userInfo } };
  },
});

const selfSubjectRulesReviews = review({
  group: AUTHORIZATION_GROUP,
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  description: 'Lists what the requesting user may do in a namespace.',
  schema: SelfSubjectRulesReview,
  create(user, body, authorizer) {
    const review = decode(this.kind, SelfSubjectRulesReview, body) as RulesReviewBody;
    const namespace = review.spec?.namespace ?? '';
    if (!namespace) throw errors.badRequest('no namespace on request');
    const rules = authorizer.rulesFor(user, namespace);
    const status: Record<string, unknown> = {
      resourceRules: rules.resourceRules.map((r) => dropEmptyLists({ ...r })),
      nonResourceRules: rules.nonResourceRules.map((r) => dropEmptyLists({ ...r })),
      incomplete: rules.incomplete,
    };
    if (rules.evaluationError) status.evaluationError = rules.evaluationError;
    // Upstream answers a fresh object: the spec is not echoed.
    return { ...envelope(this.kind, undefined), spec: {}, status };
  },
});

/** `verbs` is always written; the other lists are omitempty. */
function dropEmptyLists<T extends Record<string, unknown>>(o: T): T {
  for (const [k, v] of Object.entries(o)) if (k !== 'verbs' && (v === undefined || (Array.isArray(v) && !v.length))) delete o[k];
  return o;
}

export const reviewResources: readonly ReviewResource[] = [localSubjectAccessReviews, selfSubjectAccessReviews, selfSubjectRulesReviews, subjectAccessReviews, selfSubjectReviews];

export function reviewResourceFor(group: string, version: string, plural: string): ReviewResource | undefined {
  return reviewResources.find((r) => r.group === group && r.version === version && r.plural === plural);
}
