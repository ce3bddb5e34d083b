// Who owns each field of the object being edited, for the form's badges and
// the YAML editor's hover: managedFields read by src/lib/managedfields, with
// fields named by the segments the form and the YAML use (list indexes).
import { createContext, useContext } from 'react';
import type { KubeObject } from '../../kinds/kind.ts';
import { patchMetaFor } from '../../kinds/patchmeta.ts';
import type { KindDefinition } from '../../kinds/kind.ts';
import { decodeManaged, type Managed } from '../../lib/managedfields/managers.ts';
import { fieldPathOf, ownersBelow, ownersOf, type Owner, type Segment } from '../../lib/managedfields/ownership.ts';
import type { ApplySchema } from '../../lib/managedfields/typed.ts';

export type { Owner } from '../../lib/managedfields/ownership.ts';

export interface Ownership {
  managed: Managed;
  schema: ApplySchema;
  /** The app's own manager: its fields get no badge. */
  self: string;
}

/** The managers of a stored object, or undefined for a new or untracked one (or managedFields that do not decode). */
export function ownershipOf(kind: KindDefinition, object: KubeObject | undefined, self: string): Ownership | undefined {
  if (!object?.metadata.managedFields?.length) return undefined;
  try {
    return { managed: decodeManaged(object.metadata.managedFields as never), schema: patchMetaFor(kind), self };
  } catch {
    return undefined;
  }
}

/** The owners of the field `segments` reach in `value`. */
export function ownersAt(o: Ownership, value: unknown, segments: readonly Segment[]): Owner[] {
  const path = fieldPathOf(value, segments, o.schema);
  return path?.length ? ownersOf(o.managed, path) : [];
}

const when = (t?: string) => (t ? t.replace('T', ' ').replace(/Z$/, ' UTC') : 'no time recorded');
const how = (o: Owner) => `${o.operation}${o.subresource ? ` of ${o.subresource}` : ''}, ${when(o.time)}`;

/** The YAML hover: the owners of the field (manager, operation, time), else who owns what below it. */
export function ownershipMarkdown(o: Ownership, value: unknown, segments: readonly Segment[]): string | undefined {
  const path = fieldPathOf(value, segments, o.schema);
  if (!path?.length) return undefined;
  const owners = ownersOf(o.managed, path);
  if (owners.length) {
    const lines = owners.map((w) => `- \`${w.manager}\` — ${how(w)}`);
    return `**Field manager${owners.length > 1 ? 's (shared)' : ''}**\n\n${lines.join('\n')}`;
  }
  const below = ownersBelow(o.managed, path);
  if (!below.length) return undefined;
  return `**Fields below managed by**\n\n${below.map((b) => `- \`${b.owner.manager}\` — ${b.fields} field${b.fields === 1 ? '' : 's'} (${how(b.owner)})`).join('\n')}`;
}

const OwnershipContext = createContext<{ ownership?: Ownership; object?: unknown }>({});
export const OwnershipProvider = OwnershipContext.Provider;

/**
 * A small badge naming the manager that owns a form field, when it is another
 * than the app's own (a controller, kubectl): changing it by apply takes it
 * over, which the editor asks about first.
 */
export function OwnerBadge({ segments }: { segments: readonly Segment[] }) {
  const { ownership, object } = useContext(OwnershipContext);
  if (!ownership) return null;
  const others = ownersAt(ownership, object, segments).filter((w) => w.manager !== ownership.self);
  if (!others.length) return null;
  const names = [...new Set(others.map((w) => w.manager))];
  const title = others.map((w) => `Managed by ${w.manager} (${how(w)})`).join('\n');
  return (
    <span className="badge owner" title={`${title}\nSaving a change here with server-side apply takes the field over; the editor asks first.`} data-owner={names.join(' ')}>
      managed by <code>{names.join(', ')}</code>
    </span>
  );
}

/** One line naming every manager of the object, with what it did, when, and how many fields it owns. */
export function ManagersSummary({ ownership }: { ownership?: Ownership }) {
  if (!ownership) return null;
  const all = ownersBelow(ownership.managed, []);
  if (!all.length) return null;
  return (
    <p className="muted managers-summary" aria-label="Field managers">
      Field managers:{' '}
      {all.map(({ owner, fields }, i) => (
        <span key={`${owner.manager} ${owner.operation} ${owner.subresource ?? ''}`}>
          {i > 0 ? ' · ' : ''}
          <code>{owner.manager}</code> ({how(owner)}; {fields} field{fields === 1 ? '' : 's'})
        </span>
      ))}
      . A badge marks each field a manager other than {ownership.self} owns.
    </p>
  );
}
