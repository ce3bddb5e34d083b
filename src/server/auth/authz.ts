// Authorization: may this user do this verb on this resource? Every
// authenticated user may do everything until roles land; the step sits in
// the pipeline so that they slot in without touching the handlers.
import type { UserInfo } from './authn.ts';

export interface Attributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface Authorizer {
  /** undefined when allowed; otherwise the reason, for the 403 message. */
  authorize(user: UserInfo, attrs: Attributes): string | undefined;
}

export const allowAll: Authorizer = { authorize: () => undefined };
