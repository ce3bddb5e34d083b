// The in-process client the controllers and the bootstrap use. It goes
// through the same decode, defaulting, validation and storage path as an HTTP
// request, so a controller's write is checked like anyone else's.
import type { KindDefinition, KubeObject } from '../kinds/kind.ts';
import { decodeObject } from './registry/decode.ts';
import type { Store } from './registry/store.ts';
import type { DeleteOptions } from './registry/options.ts';

export class Client {
  constructor(private readonly stores: Map<KindDefinition, Store>) {}

  store(kind: KindDefinition): Store {
    return this.stores.get(kind)!;
  }

  private decode(kind: KindDefinition, obj: unknown): KubeObject {
    return decodeObject(kind, structuredClone(obj), { fieldValidation: 'Ignore', warnings: [] });
  }

  create(kind: KindDefinition, obj: unknown): Promise<KubeObject> {
    const o = this.decode(kind, obj);
    return this.store(kind).create(o.metadata.namespace, o, { dryRun: false, warnings: [] });
  }

  get(kind: KindDefinition, namespace: string | undefined, name: string): KubeObject {
    return this.store(kind).get(namespace, name);
  }

  /** Read-modify-write with retries on conflict; `mutate` edits a private copy. */
  update(kind: KindDefinition, namespace: string | undefined, name: string, mutate: (o: KubeObject) => void, subresource?: string) {
    return this.store(kind).guaranteedUpdate(
      namespace,
      name,
      (current) => {
        mutate(current);
        delete current.metadata.resourceVersion;
        return this.decode(kind, current);
      },
      { dryRun: false, warnings: [] },
      subresource,
    );
  }

  delete(kind: KindDefinition, namespace: string | undefined, name: string, opts: Partial<DeleteOptions> = {}) {
    return this.store(kind).delete(namespace, name, { dryRun: false, ...opts }, { dryRun: false, warnings: [] });
  }
}
