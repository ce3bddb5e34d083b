// Which resource a URL names (kube-apiserver's RequestInfo).
export interface RequestInfo {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The deprecated /watch/ path prefix was used. */
  legacyWatch: boolean;
}

/** Namespace subresources, which end a path that would otherwise be read as a namespaced resource. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** `undefined` for paths that name no resource (discovery documents are handled before). */
export function resolveRequest(pathname: string): RequestInfo | undefined {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2])) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (!rest.length || rest.length > 3) return undefined;
  return { group, version, namespace, resource: rest[0], name: rest[1], subresource: rest[2], legacyWatch };
}
