// authorization.k8s.io/v1 SelfSubjectAccessReview and SelfSubjectRulesReview:
// "may I do this?" and "what may I do here?", asked by the requesting user
// and answered by the authorizer the pipeline uses (`kubectl auth can-i`,
// `kubectl auth can-i --list`). They are create-only and stored nowhere
// (K/pkg/registry/authorization/selfsubjectaccessreview/rest.go,
// K/pkg/registry/authorization/selfsubjectrulesreview/rest.go).
import type { z } from 'zod';
import { NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReview, SelfSubjectRulesReview } from '../../kinds/authorization.ts';
import { fieldErrors, type FieldError } from '../../lib/field.ts';
import { errors } from '../http/status.ts';
import type { UserInfo } from './authn.ts';
import type { Attributes, Authorizer } from './authz.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

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
  /** The answer to a create: the review with its status filled in. */
  create(user: UserInfo, body: unknown, authorizer: Authorizer): Record<string, unknown>;
}

/** JSON null decodes to Go's zero value; the schemas spell that as an absent field. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
}

/** Decodes a review body as the apiserver's decoder would: wrong types are a 400 naming the kind. */
function decode<T extends z.ZodType>(kind: string, schema: T, body: unknown): z.infer<T> {
  const fail = (why: string) => errors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${why}`);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw fail('body must be an object');
  const b = body as Record<string, unknown>;
  if ((b.kind !== undefined && b.kind !== '' && b.kind !== kind) || (b.apiVersion !== undefined && b.apiVersion !== '' && b.apiVersion !== `${AUTHORIZATION_GROUP}/v1`)) {
    throw fail(`expected ${AUTHORIZATION_GROUP}/v1 ${kind}, got ${String(b.apiVersion ?? '')} ${String(b.kind ?? '')}`);
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
  spec?: { resourceAttributes?: z.infer<typeof ResourceAttributes>; nonResourceAttributes?: z.infer<typeof NonResourceAttributes> };
}
interface RulesReviewBody {
  spec?: { namespace?: string };
}

/** The object as the apiserver writes it back: metadata as sent, creationTimestamp null (apimachinery before 1.33). */
const envelope = (kind: string, meta: Record<string, unknown> | undefined) => ({
  kind,
  apiVersion: `${AUTHORIZATION_GROUP}/v1`,
  metadata: { ...(meta ?? {}), creationTimestamp: (meta?.creationTimestamp as string | undefined) ?? null },
});

const dropEmpty = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== null)) as T;

const selfSubjectAccessReviews: ReviewResource = {
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  scope: 'Cluster',
  verbs: ['create'],
  shortNames: [],
  categories: [],
  subresources: {},
  withoutStorage: true,
  description: 'Asks whether the requesting user may perform an action.',
  schema: SelfSubjectAccessReview,
  create(user, body, authorizer) {
    const review = decode(this.kind, SelfSubjectAccessReview, body) as AccessReviewBody;
    const spec = review.spec ?? {};
    const res = spec.resourceAttributes;
    const nonRes = spec.nonResourceAttributes;
    const errs: FieldError[] = [];
    if (res && nonRes) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', nonRes, 'cannot be specified in combination with resourceAttributes'));
    if (!res && !nonRes) errs.push(fieldErrors.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
    if (errs.length) throw errors.invalid({ group: AUTHORIZATION_GROUP, kind: this.kind }, '', errs);

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
    return { ...envelope(this.kind, review.metadata), spec: echoed, status };
  },
};

const selfSubjectRulesReviews: ReviewResource = {
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  scope: 'Cluster',
  verbs: ['create'],
  shortNames: [],
  categories: [],
  subresources: {},
  withoutStorage: true,
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
};

/** `verbs` is always written; the other lists are omitempty. */
function dropEmptyLists<T extends Record<string, unknown>>(o: T): T {
  for (const [k, v] of Object.entries(o)) if (k !== 'verbs' && (v === undefined || (Array.isArray(v) && !v.length))) delete o[k];
  return o;
}

export const reviewResources: readonly ReviewResource[] = [selfSubjectAccessReviews, selfSubjectRulesReviews];

export function reviewResourceFor(group: string, version: string, plural: string): ReviewResource | undefined {
  return reviewResources.find((r) => r.group === group && r.version === version && r.plural === plural);
}
