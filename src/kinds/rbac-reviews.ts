// authorization.k8s.io/v1 SubjectAccessReview and authentication.k8s.io/v1
// SelfSubjectReview (API/authorization/v1/types.go, API/authentication/v1/types.go):
// "may this user do this?" asked on someone else's behalf, and "who am I?"
// (`kubectl auth whoami`). Answered by the server, stored nowhere.
import { z } from 'zod';
import { NonResourceAttributes, ResourceAttributes } from './authorization.ts';
import { objectSchema } from './meta.ts';

export const SubjectAccessReview = objectSchema(
  z
    .object({
      resourceAttributes: ResourceAttributes.optional(),
      nonResourceAttributes: NonResourceAttributes.optional(),
      user: z.string().optional().describe('The user to check for; at least one of user and groups.'),
      groups: z.array(z.string()).optional().describe('The groups of that user.'),
      uid: z.string().optional().describe('The UID of that user.'),
      extra: z.record(z.string(), z.array(z.string())).optional().describe('Extra attributes of that user.'),
    })
    .describe('The action and the user to check; exactly one of resourceAttributes and nonResourceAttributes.'),
  z
    .object({
      allowed: z.boolean().describe('Whether the action would be allowed.'),
      denied: z.boolean().optional().describe('Whether the action was explicitly denied (allowed is then false too).'),
      reason: z.string().optional().describe('Why the action is allowed or not.'),
      evaluationError: z.string().optional().describe('An error met while deciding; the answer may still be usable.'),
    })
    .describe('The answer, filled in by the server.'),
  {},
  'Asks whether a given user may perform an action. The server answers in status and stores nothing.',
);

export const UserInfoSchema = z
  .object({
    username: z.string().optional().describe('The name that uniquely identifies this user.'),
    uid: z.string().optional().describe('A unique value that identifies this user across time.'),
    groups: z.array(z.string()).optional().describe('The groups this user is a part of.'),
    extra: z.record(z.string(), z.array(z.string())).optional().describe('Any additional information provided by the authenticator.'),
  })
  .describe('Information about the user.');

export const SelfSubjectReview = objectSchema(
  undefined,
  z.object({ userInfo: UserInfoSchema.optional() }).describe('The user attributes of the requester, filled in by the server.'),
  {},
  'Asks who the requesting user is, after authentication and impersonation. The server answers in status.',
);
