// What a kind is, as data. The server's routes, discovery, OpenAPI and Table
// output, and the SPA's lists, forms and YAML schema, all derive from these
// definitions; nothing else switches on a kind's name.
import type { z } from 'zod';
import type { FieldError } from '../lib/field.ts';

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMetaJSON;
  [key: string]: unknown;
}

export interface ObjectMetaJSON {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReferenceJSON[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

export interface OwnerReferenceJSON {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export type Scope = 'Cluster' | 'Namespaced';

/** What the form engine and the UI show next to a field (set with `.meta({ maturity })`). */
export type Maturity = 'deprecated' | 'beta' | 'alpha';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: 'name' | string;
  description: string;
  /** 0 = always shown, 1 = `-o wide` only. */
  priority: 0 | 1;
  /** The cell, computed from the object (`now` for ages). */
  cell: (obj: any, now: Date) => string | number | boolean;
}

export interface ValidationContext {
  /** The stored object on update; absent on create. */
  old?: any;
  /** Set when the write came through a subresource such as `status`. */
  subresource?: string;
}

/**
 * The per-kind strategy, after kube-apiserver's generic registry: the
 * variation between kinds lives here and nowhere else.
 */
export interface KindStrategy {
  /** Top-level fields a write to the main resource may not change (taken from the stored object). */
  mainResetsFields: string[];
  /** Top-level fields a write to `/status` may not change; `metadata` keeps only what `statusKeepsMetadata` says. */
  statusResetsFields: string[];
  /** On a status write, reset these metadata fields from the stored object (VolumeAttachment resets labels etc.). */
  statusResetsMetadata: string[];
  /** What create does with a supplied status. */
  statusOnCreate: 'keep' | 'reset';
  /** Bump metadata.generation on spec change and set 1 on create. */
  generation: boolean;
  /** A PUT without metadata.resourceVersion is allowed (last write wins). */
  allowUnconditionalUpdate: boolean;
  /** DELETE answers with the deleted object instead of a Status. */
  returnDeletedObject: boolean;
  /** Adjustments on create, after defaults (e.g. dropping removed fields). Mutates. */
  prepareForCreate?: (obj: any) => void;
  /** Adjustments on update through the main resource, after defaults. Mutates `obj`. */
  prepareForUpdate?: (obj: any, old: any) => void;
  /** Adjustments on a `/status` write, after the resets (VolumeAttachment drops a new alpha errorCode). Mutates `obj`. */
  prepareForStatusUpdate?: (obj: any, old: any) => void;
  /** Warnings for the `Warning` header on create and update. */
  warnings?: (obj: any, old?: any) => string[];
  /**
   * Graceful deletion (Pods): the seconds the object is given before it is
   * removed, from the requested grace period (DeleteOptions) and the object.
   * 0 or absent deletes at once.
   */
  gracePeriod?: (obj: any, requested: number | undefined) => number;
  /** Why this object may not be deleted at all (answered 403), e.g. the `default` namespace. */
  forbidDelete?: (obj: any) => string | undefined;
  /**
   * Deletion waits while this is true, as it does for metadata.finalizers
   * (a Namespace waits for its spec.finalizers). Called on the object being deleted.
   */
  deletionPending?: (obj: any) => boolean;
  /**
   * What a DELETE without propagationPolicy does to dependents
   * (rest.GarbageCollectionDeleteStrategy): `DeleteDependents` (Background,
   * the default when absent), `OrphanDependents` (legacy group versions such as
   * core/v1 ReplicationController or extensions/v1beta1 workloads), or
   * `Unsupported` (no garbage-collector finalizers are ever added).
   */
  defaultGarbageCollectionPolicy?: 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';
  /** Changes made when deletion starts (a Namespace turns Terminating). Mutates. */
  onDeletionStart?: (obj: any) => void;
  /**
   * Subresources other than `status` that write only some fields: the dotted
   * paths taken from the request, everything else from the stored object
   * (a Namespace's `finalize` writes `spec.finalizers`).
   */
  subresourceWrites?: Record<string, string[]>;
}

export interface FieldSelectorSpec {
  /** Field path -> value as a string, as the server's field selectors see it. */
  fields: Record<string, (obj: any) => string>;
  /** How an unsupported field is reported (wording differs between kinds upstream). */
  unsupported: 'field-label' | 'known-fields';
  /**
   * Fields the watch cache indexes (besides metadata.name, which names the
   * key): a list or watch selecting one value of them reads only the objects
   * with it, as a kubelet lists and watches the pods bound to its node.
   */
  indexed?: string[];
}

export interface KindDefinition {
  group: string; // '' for core
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  scope: Scope;
  description: string;
  /** Shape of the object (types, descriptions, maturity marks). Unknown keys are stripped. */
  schema: z.ZodType;
  /** Subresources beyond the main resource, with their verbs. */
  subresources: Record<string, { verbs: string[] }>;
  /** Verbs of the main resource, sorted. */
  verbs: string[];
  /** Defaulting, applied on every decode (create, update, patch result). Mutates. */
  defaults: (obj: any) => void;
  /** Semantic validation with Kubernetes paths and messages. */
  validate: (obj: any, ctx: ValidationContext) => FieldError[];
  strategy: KindStrategy;
  printerColumns: PrinterColumn[];
  fieldSelector: FieldSelectorSpec;
  /** For kinds whose controller runs pods from a template: what a change of it does to the pods. */
  rollout?: RolloutSpec;
  /**
   * Another API version of a resource stored once (events.k8s.io/v1 Event is
   * stored as core v1 Event): the stored kind and the field-by-field
   * conversion both ways. Objects live under the stored kind's keys.
   */
  storedAs?: { kind: KindDefinition; toStored: (obj: any) => any; fromStored: (obj: any) => any };
  /**
   * Its objects are heartbeats (a leader's lease, a node's): written every few seconds by many
   * clients, they keep something alive and are read by nobody in a hurry. Their writes go first
   * when writes to etcd queue (its seats), as API Priority and Fairness gives them the
   * leader-election and node-high levels; in SQLite a group of them alone waits longer for more
   * to share its transaction (SqliteStorageOptions.heartbeatPrefixes).
   */
  heartbeats?: boolean;
  /**
   * The garbage collector neither follows its objects' owner references nor
   * takes them for owners, as kube-controller-manager ignores Events
   * (DefaultIgnoredResources): they expire instead, and there are hundreds of
   * thousands of them.
   */
  ignoredByGarbageCollector?: boolean;
  /**
   * The watch cache keeps this kind's objects (for watches, gets and field selectors) but not
   * their JSON between requests: it is made for each list, get and watch event. For kinds of many
   * objects rarely read twice: kube-apiserver keeps no watch cache at all for Events, and kept
   * encodings of a cluster's hundreds of thousands of them were as large as the objects.
   */
  encodedOnDemand?: boolean;
}

/** How a workload replaces its pods when its pod template changes (the editor's review says it before Apply). */
export interface RolloutSpec {
  /** Path of the pod template (`['spec', 'template']`): any change under it makes a new revision. */
  template: string[];
  /** The pods a new revision replaces: how many, and what each one runs on (`node`). */
  pods: (obj: any) => { count: number; per: string };
  /** Whether the controller replaces them by itself; false when they change only as they are deleted (OnDelete). */
  automatic: (obj: any) => boolean;
}

/** `apps/v1`, or `v1` for the core group. */
export const apiVersionOf = (k: Pick<KindDefinition, 'group' | 'version'>) => (k.group ? `${k.group}/${k.version}` : k.version);

/** `daemonsets.apps`, or `nodes` for the core group (the resource in error messages). */
export const groupResourceOf = (k: Pick<KindDefinition, 'group' | 'plural'>) => (k.group ? `${k.plural}.${k.group}` : k.plural);

/** `DaemonSet.apps`, or `Node` for the core group (the kind in Invalid messages). */
/** Whether an owner reference (or any apiVersion + kind pair) names this kind, in any version of its group. */
export const refersTo = (ref: { apiVersion?: string; kind?: string }, k: Pick<KindDefinition, 'group' | 'kind'>) =>
  ref.kind === k.kind && (ref.apiVersion?.includes('/') ? ref.apiVersion.split('/')[0] : '') === k.group;

/** The verbs of a kind that supports every standard one. */
export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const groupKindOf = (k: Pick<KindDefinition, 'group' | 'kind'>) => (k.group ? `${k.kind}.${k.group}` : k.kind);
