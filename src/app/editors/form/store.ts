// The form's state is react-hook-form's: useForm holds the draft (its default
// values are the object being edited, and nothing is unregistered, so fields
// not on screen are kept), each widget subscribes to its own path with
// useWatch / useFormState, and validation is the kind's Zod schema through
// zodResolver plus the kind's own rules (validation.ts). No input is
// registered, so nothing is written when a field mounts: the draft changes
// only when the user edits, and each edit is applied by the rules of
// draft.ts (an emptied field the stored object lacks is removed, not left as
// `false`, `''` or `{}`). FormStore is the thin adapter the widgets and the
// pages use over the form's methods.
import { createContext, useContext, useState } from 'react';
import { get, useForm, useFormState, useWatch, type FieldErrors, type FieldValues, type Resolver, type UseFormReturn } from 'react-hook-form';
import type { KubeObject } from '../../../kinds/kind.ts';
import { clone, deepEqual } from '../../../lib/json.ts';
import { editField, fieldKey, getIn, k8sPath, removeItem, setIn, type Segment } from './draft.ts';

export interface ShownError {
  /** Form key of the field (`spec.ingress.0.from.0.ipBlock.cidr`). */
  key: string;
  /** The path as Kubernetes writes it, for the banner. */
  field: string;
  message: string;
}

/** Form keys are dotted paths (`spec.ingress.0.from`); list indexes become numbers again. */
export const segmentsOf = (key: string): Segment[] => (key === '' ? [] : key.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s)));

/**
 * An error as kept in react-hook-form's error tree: `types` maps the
 * Kubernetes path the error was reported at to its messages (a field may have
 * several), so the path shows as the server wrote it (`labels[a.b/c]`).
 */
const K8S = 'k8s';
const isErrorNode = (v: unknown): v is { message: string; type?: unknown; types?: Record<string, unknown> } => !!v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string';

/** Every error in `errors` at `key` or below it, in tree order. */
export function errorsIn(errors: FieldErrors | undefined, key = ''): ShownError[] {
  const out: ShownError[] = [];
  const walk = (node: unknown, k: string) => {
    if (!node || typeof node !== 'object') return;
    const own = isErrorNode(node);
    if (own) {
      const types = Object.entries(node.types ?? {});
      if (node.type === K8S && types.length) for (const [field, ms] of types) for (const m of [ms].flat()) out.push({ key: k, field, message: String(m) });
      else if (types.length) for (const [, ms] of types) for (const m of [ms].flat()) out.push({ key: k, field: k8sPath(segmentsOf(k)), message: String(m) });
      else out.push({ key: k, field: k8sPath(segmentsOf(k)), message: node.message });
    }
    for (const [name, child] of Object.entries(node)) {
      // An error's own members; a field of the same name (`type`) is an object below it.
      if (own && (name === 'message' || name === 'types' || name === 'ref' || (name === 'type' && typeof child !== 'object'))) continue;
      walk(child, k === '' ? name : `${k}.${name}`);
    }
  };
  walk(key === '' ? errors : get(errors, key), key);
  return out;
}

/** `errors` as react-hook-form's error tree. */
export function errorTree(errors: ShownError[]): FieldErrors {
  const tree: FieldValues = {};
  for (const [key, list] of groupByKey(errors)) {
    if (key === '') continue;
    const at = getIn(tree, segmentsOf(key)) as object | undefined;
    Object.assign(setPath(tree, segmentsOf(key)), { ...at, ...errorOption(list) });
  }
  return tree as FieldErrors;
}

function setPath(tree: FieldValues, path: Segment[]): FieldValues {
  let cur: FieldValues = tree;
  for (const s of path) cur = cur[s as string] && typeof cur[s as string] === 'object' ? cur[s as string] : (cur[s as string] = {});
  return cur;
}

function groupByKey(errors: ShownError[]): Map<string, ShownError[]> {
  const byKey = new Map<string, ShownError[]>();
  for (const e of errors) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
  return byKey;
}

function errorOption(list: ShownError[]) {
  const types: Record<string, string[]> = {};
  for (const e of list) (types[e.field] ??= []).push(e.message);
  return { type: K8S, message: list[0].message, types };
}

const signature = (list: ShownError[] | undefined) => (list ?? []).map((e) => `${e.field}\u0000${e.message}`).join('\n');

export class FormStore {
  /** Paths the user changed through the form (errors near them show before a review is asked for). */
  readonly touched = new Set<string>();
  /** Form keys of sections the user opened, kept while their fields unmount and mount again. */
  readonly opened = new Set<string>();

  constructor(
    readonly form: UseFormReturn<FieldValues>,
    /** The object the edit began from: what an emptied field falls back to, and what decides which fields start collapsed. */
    public stored: KubeObject,
  ) {}

  get control() {
    return this.form.control;
  }
  /** The object the form would send: a copy of the form's values (members left undefined by an edit dropped). */
  get draft(): KubeObject {
    return clone(this.form.getValues()) as KubeObject;
  }

  /**
   * Writes `next`, the draft after an edit at `path`, into the form: the
   * value at `path`, or, where the edit removed a field (and maybe objects
   * around it), the object that lost it.
   */
  private write(path: readonly Segment[], next: KubeObject) {
    this.touched.add(fieldKey(path));
    let at = path.length;
    for (let i = 1; i <= path.length; i++) {
      if (getIn(next, path.slice(0, i)) === undefined) {
        at = i - 1;
        break;
      }
    }
    const target = at === 0 ? path.slice(0, 1) : path.slice(0, at);
    this.form.setValue(fieldKey(target), getIn(next, target));
  }
  /** A user's edit of one field (see editField: emptied fields the stored object lacks are removed). */
  edit(path: readonly Segment[], next: unknown) {
    this.write(path, editField(this.draft, this.stored, path, next));
  }
  /** Sets a value as is: a section or list item the user added (`emptyDir: {}` means something). */
  put(path: readonly Segment[], next: unknown) {
    this.write(path, setIn(this.draft, path, next));
  }
  remove(path: readonly Segment[], index: number) {
    this.write(path, removeItem(this.draft, this.stored, path, index));
  }
  /** Replaces the whole draft (from YAML, a rebase): each top-level member the form's subscribers listen below. */
  replace(next: KubeObject) {
    const current = this.form.getValues();
    for (const k of new Set([...Object.keys(current), ...Object.keys(next)])) {
      if (!deepEqual(current[k], (next as FieldValues)[k])) this.form.setValue(k, clone((next as FieldValues)[k]));
    }
  }

  /** Validates the draft with the form's resolver (react-hook-form's trigger); the errors found, each once. */
  async validate(): Promise<ShownError[]> {
    await this.form.trigger();
    return errorsIn(this.control._formState.errors);
  }

  /**
   * Shows `errors` on their fields (react-hook-form's setError), changing only
   * the fields whose errors changed, so only those re-render.
   */
  showErrors(errors: ShownError[]) {
    const want = groupByKey(errors.filter((e) => e.key !== ''));
    const have = groupByKey(errorsIn(this.control._formState.errors));
    const gone = [...have.keys()].filter((k) => !want.has(k));
    const changed = [...want.keys()].filter((k) => signature(want.get(k)) !== signature(have.get(k)));
    if (!gone.length && !changed.length) return;
    if (gone.length) this.form.clearErrors(gone);
    // Clearing or setting an object's error may drop those below it (a field named `type`): set them again, outermost first.
    const touchedKeys = [...gone, ...changed];
    const reset = [...want.keys()].filter((k) => changed.includes(k) || touchedKeys.some((t) => k.startsWith(`${t}.`)));
    reset.sort((a, b) => a.split('.').length - b.split('.').length);
    for (const k of reset) this.form.setError(k, errorOption(want.get(k)!));
  }
}

/** The form of one edit: react-hook-form's, with the object as its default values. */
export function useDraftForm({ initial, stored, resolver }: { initial: KubeObject; stored: KubeObject; resolver?: Resolver<FieldValues> }): FormStore {
  const [defaultValues] = useState(() => clone(initial));
  const form = useForm<FieldValues>({ defaultValues, shouldUnregister: false, criteriaMode: 'all', resolver });
  const [store] = useState(() => new FormStore(form, clone(stored)));
  return store;
}

const StoreContext = createContext<FormStore | null>(null);
export const FormStoreProvider = StoreContext.Provider;

export function useFormStore(): FormStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('form fields need a FormStoreProvider');
  return store;
}

/** The value at `path`, re-rendering only when it (or a part of it, or an object around it) is written. */
export function useValue(path: readonly Segment[]): unknown {
  const store = useFormStore();
  return useWatch({ control: store.control, name: fieldKey(path) });
}

/** Something computed from the value at `path`, re-rendering only when the result changes (a list's length, whether an object is there). */
export function useComputed<T>(path: readonly Segment[], compute: (v: unknown) => T): T {
  const store = useFormStore();
  return useWatch({ control: store.control, name: fieldKey(path), compute }) as T;
}

/** The errors at and below the fields `keys`, re-rendering only when theirs change. */
function useErrorTree(keys: string | string[]): FieldErrors {
  const store = useFormStore();
  return useFormState({ control: store.control, name: keys }).errors;
}

/** Messages at exactly `key`. */
export function useErrorsAt(key: string): string[] | undefined {
  const errors = useErrorTree(key);
  const own = get(errors, key);
  return isErrorNode(own) ? errorsIn(errors, key).filter((e) => e.key === key).map((e) => e.message) : undefined;
}

/** Messages at `key` or below it, one a line (below ones with their paths). */
export function useErrorsUnder(key: string): string {
  return errorsIn(useErrorTree(key), key)
    .map((e) => (e.key === key ? e.message : `${e.field}: ${e.message}`))
    .join('\n');
}

/** Messages below `key` whose next segment is none of `known` (fields the form has no input for), with their paths. */
export function useErrorsOutside(key: string, known: string[]): string {
  const depth = key === '' ? 0 : key.split('.').length;
  return errorsIn(useErrorTree(key), key)
    .filter((e) => e.key !== key && !known.includes(e.key.split('.')[depth]))
    .map((e) => `${e.field}: ${e.message}`)
    .join('\n');
}

/** Whether any of `keys` has an error at or below it. */
export function useHasErrors(keys: string[]): boolean {
  const errors = useErrorTree(keys);
  return keys.some((k) => errorsIn(errors, k).length > 0);
}
