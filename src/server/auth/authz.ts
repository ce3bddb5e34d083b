// Authorization: may this user do this verb on this resource (or path)?
// The server plugs in Node and RBAC behind the system:masters group (rbac.ts,
// node.ts). The decision is made in one place, `decide`: the pipeline asks it for every request,
// and SelfSubjectAccessReview asks it on the user's behalf, so the review
// tells the truth whatever authorizer is plugged in. `rulesFor` is the same
// authorizer's answer to "what may this user do in this namespace"
// (SelfSubjectRulesReview, `kubectl auth can-i --list`).
import type { UserInfo } from './authn.ts';

/**
 * A request as authorization sees it (upstream's authorizer.Attributes).
 * Resource requests name group/resource; non-resource requests (`/version`,
 * `/apis`, `/openapi/v3`) carry `path` and leave group and resource empty.
 */
export interface Attributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The URL path of a non-resource request. */
  path?: string;
}

export interface Decision {
  allowed: boolean;
  /** An explicit deny, as opposed to having no opinion (SubjectAccessReviewStatus.denied). */
  denied?: boolean;
  /** Why; shown in the 403 message and in SubjectAccessReview status. May be empty. */
  reason: string;
  /** The decision was made despite an error in evaluating the rules. */
  evaluationError?: string;
}

/** authorization.k8s.io/v1 ResourceRule. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** authorization.k8s.io/v1 NonResourceRule. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface Rules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** The list is not exhaustive (some authorizer could not enumerate its rules). */
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  /** The decision for one request. */
  decide(user: UserInfo, attrs: Attributes): Decision;
  /** What the user may do in the namespace (cluster-wide rules included). */
  rulesFor(user: UserInfo, namespace: string): Rules;
  /** `decide` for callers that only need "no": undefined when allowed, else the (non-empty) reason. */
  authorize(user: UserInfo, attrs: Attributes): string | undefined;
}

/** An Authorizer from its decision and its rules; `authorize` is derived so there is one place for the decision. */
export function makeAuthorizer(impl: Pick<Authorizer, 'decide' | 'rulesFor'>): Authorizer {
  return {
    decide: impl.decide,
    rulesFor: impl.rulesFor,
    authorize(user, attrs) {
      const d = impl.decide(user, attrs);
      return d.allowed ? undefined : d.reason || 'denied';
    },
  };
}

/** Upstream's AlwaysAllow mode: allowed with no reason; its rules are everything (tests, and a Client without an authorizer). */
export const allowAll: Authorizer = makeAuthorizer({
  decide: () => ({ allowed: true, reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
});

/** The 403 text for a denied request (AS/pkg/endpoints/handlers/responsewriters/errors.go forbiddenMessage). */
export function forbiddenMessage(user: UserInfo, attrs: Attributes, reason: string): string {
  let msg: string;
  if (!attrs.resource) {
    msg = `User "${user.name}" cannot ${attrs.verb} path "${attrs.path ?? ''}"`;
  } else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
    msg = `User "${user.name}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.group}" ${scope}`;
  }
  return reason ? `${msg}: ${reason}` : msg;
}
