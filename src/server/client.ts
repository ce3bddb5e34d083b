// The in-process client the controllers and the bootstrap use. Each client
// acts as one user: its requests are authorized like an HTTP request and go
// through the same decode, defaulting, validation, admission and storage path.
import type { KindDefinition, KubeObject } from '../kinds/kind.ts';
import { decodeObject } from './registry/decode.ts';
import type { Store, WriteContext } from './registry/store.ts';
import type { DeleteOptions, ListQuery } from './registry/options.ts';
import { ADMIN, type UserInfo } from './auth/authn.ts';
import { allowAll, forbiddenMessage, type Attributes, type Authorizer } from './auth/authz.ts';
import { errors } from './http/status.ts';
import type { CachedObject } from './watch/cache.ts';
import { clone } from '../lib/json.ts';

/**
 * The copy of a cached object an in-process update's `mutate` edits, the
 * object the store is about to compare against, so keeping its
 * resourceVersion costs nothing and satisfies kinds that reject
 * unconditional updates (VolumeAttachment). It leaves out the managed
 * fields, which the store records from the stored entries (a write of this
 * process sends none of its own, so it is credited as if it had sent them
 * back as they were): copying them, and decoding the copy, were two fifths
 * of a pod status write's copying in a rollout.
 */
function privateCopy(o: KubeObject): KubeObject {
  const copy: Record<string, unknown> = {};
  for (const k in o) {
    if (k !== 'metadata') copy[k] = clone(o[k as keyof KubeObject]);
    else {
      const metadata: Record<string, unknown> = {};
      for (const m in o.metadata) if (m !== 'managedFields') metadata[m] = clone(o.metadata[m as keyof KubeObject['metadata']]);
      copy.metadata = metadata;
    }
  }
  return copy as KubeObject;
}

export class Client {
  constructor(
    private readonly stores: Map<KindDefinition, Store>,
    private readonly authorizer: Authorizer = allowAll,
    readonly user: UserInfo = ADMIN,
  ) {}

  /** The same client acting as another user (a controller's own identity); the stores' admission judges its writes. */
  as(user: UserInfo): Client {
    return new Client(this.stores, this.authorizer, user);
  }

  store(kind: KindDefinition): Store {
    return this.stores.get(kind)!;
  }

  private authorize(kind: KindDefinition, attrs: Omit<Attributes, 'group' | 'resource'>) {
    const a: Attributes = { ...attrs, group: kind.group, resource: kind.plural };
    const d = this.authorizer.decide(this.user, a);
    if (!d.allowed) throw errors.forbidden(kind, attrs.name ?? '', forbiddenMessage(this.user, a, d.reason));
  }

  /**
   * Decoding copies what it is given (the caller keeps `obj` untouched); `owned`: the object is a
   * private copy already (an update's), so its nulls are dropped in place rather than in one more copy.
   */
  private decode(kind: KindDefinition, obj: unknown, owned = false, statusOf?: KubeObject, before?: KubeObject): KubeObject {
    return decodeObject(kind, obj, { fieldValidation: 'Ignore', warnings: [], owned, statusOf, before });
  }

  // Writes are async so that a refusal is a rejected promise (callers `.catch` them), never a synchronous throw.
  async create(kind: KindDefinition, obj: unknown): Promise<KubeObject> {
    const o = this.decode(kind, obj);
    this.authorize(kind, { verb: 'create', namespace: o.metadata.namespace });
    return this.store(kind).create(o.metadata.namespace, o, { dryRun: false, warnings: [], user: this.user });
  }

  get(kind: KindDefinition, namespace: string | undefined, name: string): KubeObject {
    this.authorize(kind, { verb: 'get', namespace, name });
    return this.store(kind).get(namespace, name);
  }

  /** The object as the storage (etcd) holds it, whatever the cache's lag: what client-go's leader elector reads. */
  async getLatest(kind: KindDefinition, namespace: string | undefined, name: string): Promise<KubeObject> {
    this.authorize(kind, { verb: 'get', namespace, name });
    return (await this.store(kind).getLatest(namespace, name)).object;
  }

  /** The current objects (from the watch cache), optionally filtered. */
  async list(kind: KindDefinition, namespace?: string, q: Partial<ListQuery> = {}): Promise<CachedObject[]> {
    this.authorize(kind, { verb: 'list', namespace });
    const page = await this.store(kind).list(namespace, {
      labelSelector: [],
      fieldSelector: [],
      limit: 0,
      watch: false,
      allowWatchBookmarks: false,
      hasSelectors: false,
      ...q,
    });
    return page.items;
  }

  /** Read-modify-write with retries on conflict; `mutate` edits a private copy. */
  async update(kind: KindDefinition, namespace: string | undefined, name: string, mutate: (o: KubeObject) => void, subresource?: string, opts: Pick<WriteContext, 'returnWhenStored'> = {}) {
    this.authorize(kind, { verb: 'update', namespace, name, subresource });
    return this.store(kind).guaranteedUpdateFrom(
      namespace,
      name,
      async (cached) => {
        const current = privateCopy(cached.object);
        mutate(current);
        // A status write keeps the stored spec: decoding the copy's again would be thrown away. Only what `mutate` changed is parsed.
        return this.decode(kind, current, true, subresource === 'status' ? cached.object : undefined, cached.object);
      },
      { dryRun: false, warnings: [], user: this.user, ...opts },
      subresource,
    );
  }

  async delete(kind: KindDefinition, namespace: string | undefined, name: string, opts: Partial<DeleteOptions> = {}) {
    this.authorize(kind, { verb: 'delete', namespace, name });
    return this.store(kind).delete(namespace, name, { dryRun: false, ...opts }, { dryRun: false, warnings: [], user: this.user });
  }
}
