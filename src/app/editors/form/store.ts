// The form's state outside React: the draft object, the object the edit
// began from, and the errors to show. Each field subscribes to its own path
// only, so typing in one field re-renders that field and not the whole form
// (a full pod template has hundreds of fields).
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { editField, fieldKey, getIn, removeItem, setIn, type Segment } from './draft.ts';

export interface ShownError {
  /** Form key of the field (`spec.ingress.0.from.0.ipBlock.cidr`). */
  key: string;
  /** The path as Kubernetes writes it, for the banner. */
  field: string;
  message: string;
}

export class FormStore {
  private listeners = new Set<() => void>();
  private errorsByKey = new Map<string, string[]>();
  private errorList: ShownError[] = [];
  /** Paths the user changed through the form (errors near them show before a review is asked for). */
  readonly touched = new Set<string>();
  /** Form keys of sections the user opened, kept while their fields unmount and mount again. */
  readonly opened = new Set<string>();

  constructor(
    private value: KubeObject,
    /** The object the edit began from: what an emptied field falls back to, and what decides which fields start collapsed. */
    public stored: KubeObject,
  ) {}

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };
  private emit() {
    for (const fn of this.listeners) fn();
  }

  get draft(): KubeObject {
    return this.value;
  }
  /** Replaces the whole draft (from YAML, a rebase, a new stored object). */
  replace(next: KubeObject) {
    this.value = next;
    this.emit();
  }
  get(path: readonly Segment[]): unknown {
    return getIn(this.value, path);
  }
  /** A user's edit of one field (see editField: emptied fields the stored object lacks are removed). */
  edit(path: readonly Segment[], next: unknown) {
    this.touched.add(fieldKey(path));
    this.value = editField(this.value, this.stored, path, next);
    this.emit();
  }
  /** Sets a value as is: a section or list item the user added (`emptyDir: {}` means something). */
  put(path: readonly Segment[], next: unknown) {
    this.touched.add(fieldKey(path));
    this.value = setIn(this.value, path, next);
    this.emit();
  }
  remove(path: readonly Segment[], index: number) {
    this.touched.add(fieldKey(path));
    this.value = removeItem(this.value, this.stored, path, index);
    this.emit();
  }

  setErrors(errors: ShownError[]) {
    this.errorList = errors;
    const byKey = new Map<string, string[]>();
    for (const e of errors) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e.message]);
    this.errorsByKey = byKey;
    this.emit();
  }
  /** Messages at exactly `key`. */
  errorsAt(key: string): string[] | undefined {
    return this.errorsByKey.get(key);
  }
  /** Messages at `key` or below it, joined (a string, so subscribers compare by value). */
  errorsUnder(key: string): string {
    return this.errorList
      .filter((e) => e.key === key || e.key.startsWith(`${key}.`))
      .map((e) => (e.key === key ? e.message : `${e.field}: ${e.message}`))
      .join('\n');
  }
  /** Messages below `key` whose next segment is none of `known` (fields the form has no input for), with their paths. */
  errorsOutside(key: string, known: string[]): string {
    const depth = key === '' ? 0 : key.split('.').length;
    return this.errorList
      .filter((e) => (key === '' || e.key.startsWith(`${key}.`)) && !known.includes(e.key.split('.')[depth]))
      .map((e) => `${e.field}: ${e.message}`)
      .join('\n');
  }
}

const StoreContext = createContext<FormStore | null>(null);
export const FormStoreProvider = StoreContext.Provider;

export function useFormStore(): FormStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('form fields need a FormStoreProvider');
  return store;
}

/** The value at `path`, re-rendering only when it changes. */
export function useValue(path: readonly Segment[]): unknown {
  const store = useFormStore();
  return useSyncExternalStore(store.subscribe, () => store.get(path));
}

export function useErrorsAt(key: string): string[] | undefined {
  const store = useFormStore();
  return useSyncExternalStore(store.subscribe, () => store.errorsAt(key));
}

export function useErrorsUnder(key: string): string {
  const store = useFormStore();
  return useSyncExternalStore(store.subscribe, () => store.errorsUnder(key));
}
