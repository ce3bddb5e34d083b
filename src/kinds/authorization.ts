// authorization.k8s.io/v1 SelfSubjectAccessReview and SelfSubjectRulesReview
// (API/authorization/v1/types.go): questions a user asks about their own
// permissions. They are not stored, so they are no KindDefinition: the server
// answers them (src/server/auth/reviews.ts); these schemas decode the
// questions and describe both for /openapi/v3 and `kubectl explain`.
import { z } from 'zod';
import { objectSchema } from './meta.ts';

const selectorRequirement = z.object({
  key: z.string().optional().describe('The label or field the requirement applies to.'),
  operator: z.string().optional().describe('In, NotIn, Exists or DoesNotExist (labels); In or NotIn (fields).'),
  values: z.array(z.string()).optional().describe('Values for In and NotIn; empty for Exists and DoesNotExist.'),
});

const selectorAttributes = (what: string) =>
  z
    .object({
      rawSelector: z.string().optional().describe(`The ${what} selector as written in a query parameter.`),
      requirements: z.array(selectorRequirement).optional().describe(`The ${what} selector, parsed.`),
    })
    .describe(`Narrows the question to objects matching a ${what} selector; can only restrict access, never widen it.`);

export const ResourceAttributes = z
  .object({
    namespace: z.string().optional().describe('Namespace of the request; empty for cluster-scoped resources or for all namespaces.'),
    verb: z.string().optional().describe('API verb such as get, list, watch, create, update, patch, delete; "*" means all.'),
    group: z.string().optional().describe('API group of the resource, empty for the core group; "*" means all.'),
    version: z.string().optional().describe('API version of the resource; "*" means all.'),
    resource: z.string().optional().describe('Resource (plural name); "*" means all.'),
    subresource: z.string().optional().describe('Subresource such as status; empty means the main resource.'),
    name: z.string().optional().describe('Name of the object; empty means all objects.'),
    fieldSelector: selectorAttributes('field').optional(),
    labelSelector: selectorAttributes('label').optional(),
  })
  .describe('A request on a resource, as authorization sees it.');

export const NonResourceAttributes = z
  .object({
    path: z.string().optional().describe('URL path of the request, such as /version or /apis.'),
    verb: z.string().optional().describe('Lower-case HTTP method of the request.'),
  })
  .describe('A request on a path that names no resource.');

const accessReviewStatus = z
  .object({
    allowed: z.boolean().describe('Whether the action would be allowed.'),
    denied: z.boolean().optional().describe('Whether the action was explicitly denied (allowed is then false too).'),
    reason: z.string().optional().describe('Why the action is allowed or not.'),
    evaluationError: z.string().optional().describe('An error met while deciding; the answer may still be usable.'),
  })
  .describe('The answer, filled in by the server.');

export const SelfSubjectAccessReview = objectSchema(
  z
    .object({
      resourceAttributes: ResourceAttributes.optional(),
      nonResourceAttributes: NonResourceAttributes.optional(),
    })
    .describe('The action to check; exactly one of resourceAttributes and nonResourceAttributes.'),
  accessReviewStatus,
  {},
  'Asks whether the requesting user may perform an action. The server answers in status and stores nothing.',
);

const resourceRule = z.object({
  verbs: z.array(z.string()).describe('Verbs allowed; "*" means all.'),
  apiGroups: z.array(z.string()).optional().describe('API groups the rule covers; "*" means all.'),
  resources: z.array(z.string()).optional().describe('Resources the rule covers, "resource/subresource" for subresources; "*" means all.'),
  resourceNames: z.array(z.string()).optional().describe('Object names the rule is limited to; empty means all.'),
});

const nonResourceRule = z.object({
  verbs: z.array(z.string()).describe('Verbs allowed; "*" means all.'),
  nonResourceURLs: z.array(z.string()).optional().describe('Paths the rule covers; a trailing "*" matches a prefix.'),
});

export const SelfSubjectRulesReview = objectSchema(
  z.object({ namespace: z.string().optional().describe('Namespace to list the rules for.') }).describe('Where to list the rules.'),
  z
    .object({
      resourceRules: z.array(resourceRule).describe('What the user may do on resources in the namespace.'),
      nonResourceRules: z.array(nonResourceRule).describe('What the user may do on non-resource paths.'),
      incomplete: z.boolean().describe('True when the list is not exhaustive (an authorizer could not enumerate its rules).'),
      evaluationError: z.string().optional().describe('An error met while listing the rules.'),
    })
    .describe('The rules, filled in by the server.'),
  {},
  'Lists what the requesting user may do in a namespace. Useful for UIs; not meant for authorization decisions.',
);
