// Discovery documents, legacy and aggregated, derived from the kind registry.
import { createHash } from 'node:crypto';
import { apiVersionOf, type KindDefinition } from '../kinds/kind.ts';

export const AGGREGATED_DISCOVERY_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** base64 of the first 8 bytes of sha256("group/version/Kind") (upstream's storageVersionHash). */
export function storageVersionHash(k: Pick<KindDefinition, 'group' | 'version' | 'kind'>): string {
  return createHash('sha256').update(`${k.group}/${k.version}/${k.kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * Subresources whose request and response are another kind than their parent
 * (upstream's discovery names them with group and version when those differ).
 */
export const SUBRESOURCE_KINDS: Record<string, { group: string; version: string; kind: string }> = {
  eviction: { group: 'policy', version: 'v1', kind: 'Eviction' },
  binding: { group: '', version: 'v1', kind: 'Binding' },
};

/**
 * What discovery lists about a resource. Every kind is one; so are resources
 * served without storage (the authorization reviews), which say so and get no
 * storageVersionHash, as upstream.
 */
export type ServedResource = Pick<KindDefinition, 'group' | 'version' | 'kind' | 'plural' | 'singular' | 'scope' | 'verbs' | 'shortNames' | 'categories' | 'subresources'> & {
  withoutStorage?: boolean;
};

export interface GroupVersion<K extends ServedResource = KindDefinition> {
  group: string;
  version: string;
  kinds: K[];
}

export function groupVersions<K extends ServedResource>(kinds: readonly K[]): GroupVersion<K>[] {
  const out: GroupVersion<K>[] = [];
  for (const k of kinds) {
    let gv = out.find((g) => g.group === k.group && g.version === k.version);
    if (!gv) out.push((gv = { group: k.group, version: k.version, kinds: [] }));
    gv.kinds.push(k);
  }
  return out;
}

export function apiVersions(serverAddress: string) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(group: string, versions: string[]) {
  const gvs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: gvs, preferredVersion: gvs[0] };
}

export function apiGroupList(kinds: readonly ServedResource[]) {
  const groups = new Map<string, string[]>();
  for (const gv of groupVersions(kinds)) if (gv.group) groups.set(gv.group, [...(groups.get(gv.group) ?? []), gv.version]);
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups].map(([g, vs]) => apiGroup(g, vs)) };
}

export function apiGroupDoc(kinds: readonly ServedResource[], group: string) {
  const versions = groupVersions(kinds).filter((gv) => gv.group === group).map((gv) => gv.version);
  return versions.length ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) } : undefined;
}

export function apiResourceList(gv: GroupVersion<ServedResource>) {
  const resources: object[] = [];
  for (const k of gv.kinds) {
    const r: Record<string, unknown> = {
      name: k.plural,
      singularName: k.singular,
      namespaced: k.scope === 'Namespaced',
      kind: k.kind,
      verbs: k.verbs,
    };
    if (k.shortNames.length) r.shortNames = k.shortNames;
    if (k.categories.length) r.categories = k.categories;
    if (!k.withoutStorage) r.storageVersionHash = storageVersionHash(k);
    resources.push(r);
    for (const [sub, { verbs }] of Object.entries(k.subresources)) {
      const other = SUBRESOURCE_KINDS[sub];
      const r: Record<string, unknown> = { name: `${k.plural}/${sub}`, singularName: '', namespaced: k.scope === 'Namespaced' };
      // kubectl drain finds the Eviction version from exactly these group/version fields.
      if (other && (other.group !== k.group || other.version !== k.version)) Object.assign(r, { group: other.group, version: other.version });
      r.kind = other?.kind ?? k.kind;
      r.verbs = verbs;
      resources.push(r);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(gv), resources };
}

/** The aggregated form kubectl asks for first: one document for /api, one for /apis. */
export function aggregatedDiscovery(kinds: readonly ServedResource[], core: boolean) {
  const byGroup = new Map<string, GroupVersion<ServedResource>[]>();
  for (const gv of groupVersions(kinds)) {
    if ((gv.group === '') !== core) continue;
    byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv]);
  }
  const items = [...byGroup].map(([group, gvs]) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: gvs.map((gv) => ({
      version: gv.version,
      freshness: 'Current',
      resources: gv.kinds.map((k) => {
        const responseKind = { group: k.group, version: k.version, kind: k.kind };
        const r: Record<string, unknown> = {
          resource: k.plural,
          responseKind,
          scope: k.scope,
          singularResource: k.singular,
          verbs: k.verbs,
        };
        if (k.shortNames.length) r.shortNames = k.shortNames;
        if (k.categories.length) r.categories = k.categories;
        const subs = Object.entries(k.subresources).map(([subresource, { verbs }]) => ({
          subresource,
          responseKind: SUBRESOURCE_KINDS[subresource] ?? responseKind,
          verbs,
        }));
        if (subs.length) r.subresources = subs;
        return r;
      }),
    })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
