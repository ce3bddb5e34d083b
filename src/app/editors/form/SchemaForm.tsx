// Renders a field tree as inputs bound to the react-hook-form draft (see
// store.ts). A widget writes only when the user changes it (nothing is read
// back from an input, nor registered, as it mounts), each widget re-renders
// only for its own value and errors (useWatch / useFormState by name), and the
// parts of an object the layout does not list first stay collapsed, their
// fields not even mounted, until opened. Errors show next to their field, on
// the list item or object they belong to, and inside a collapsed part, which
// then opens.
import { memo, useRef, useState, type ReactNode } from 'react';
import { MaturityBadge } from '../../components/common.tsx';
import { deepEqual } from '../../../lib/json.ts';
import { parseYaml, toYaml } from '../../../lib/yaml.ts';
import { parseIntOrString, type FieldNode } from './fields.ts';
import { segmentsOf, useComputed, useErrorsAt, useErrorsOutside, useErrorsUnder, useFormStore, useHasErrors, useValue } from './store.ts';
import { getIn } from './draft.ts';
import { OwnerBadge } from '../ownership.tsx';
const join = (base: string, name: string | number) => (base ? `${base}.${name}` : String(name));
export const inputId = (key: string) => `f-${key.replace(/\./g, '-')}`;

function Messages({ messages, fieldKey }: { messages: string[] | string | undefined; fieldKey: string }) {
  const list = typeof messages === 'string' ? (messages ? messages.split('\n') : []) : (messages ?? []);
  return (
    <>
      {list.map((m, i) => (
        <div key={i} className="field-error" role="alert" data-field={fieldKey}>
          {m}
        </div>
      ))}
    </>
  );
}

/** A field's label; with `fieldKey`, beside it (not in its name) the badge of the manager that owns the field, if another. */
function Label({ node, htmlFor, fieldKey }: { node: FieldNode; htmlFor?: string; fieldKey?: string }) {
  const label = (
    <label className="form-label" htmlFor={htmlFor} title={node.help}>
      {node.label} <MaturityBadge maturity={node.maturity} />
    </label>
  );
  if (fieldKey === undefined) return label;
  return (
    <span className="form-label-row">
      {label}
      <OwnerBadge segments={segmentsOf(fieldKey)} />
    </span>
  );
}

const Help = ({ node }: { node: FieldNode }) => (node.help ? <div className="form-help">{node.help}</div> : null);

/**
 * Text typed into an input, kept while it parses to the stored value: `08`
 * stays `08` while the value is 8, and a value changed elsewhere (YAML, a
 * rebase) replaces the text.
 */
function useText(value: unknown, display: (v: unknown) => string, parse: (t: string) => unknown): [string, (t: string) => unknown] {
  const [text, setText] = useState(() => display(value));
  const seen = useRef(value);
  if (seen.current !== value) {
    seen.current = value;
    if (parse(text) !== value) setText(display(value));
  }
  return [text, (t: string) => (setText(t), parse(t))];
}

const show = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const parsers: Record<string, (t: string) => unknown> = {
  number: (t) => (t.trim() === '' ? undefined : Number.isFinite(Number(t)) ? Number(t) : t),
  intOrString: (t) => parseIntOrString(t),
  text: (t) => (t === '' ? undefined : t),
};

const Scalar = memo(function Scalar({ node, fieldKey }: { node: FieldNode; fieldKey: string }) {
  const store = useFormStore();
  const path = segmentsOf(fieldKey);
  const value = useValue(path);
  const errors = useErrorsAt(fieldKey);
  const parse = parsers[node.widget] ?? parsers.text;
  const [text, type] = useText(value, show, parse);
  const id = inputId(fieldKey);
  const invalid = !!errors?.length;
  /** An edit that only re-types what is shown is no edit (`1` for a stored number 1 stays a number). */
  const onText = (t: string) => {
    const next = type(t);
    if (t !== show(value)) store.edit(path, next);
  };
  const common = { id, 'aria-invalid': invalid, disabled: node.readOnly, className: `input${invalid ? ' invalid' : ''}` };
  let input: ReactNode;
  switch (node.widget) {
    case 'checkbox':
      return (
        <div className="form-field checkbox">
          <span className="form-label-row">
            <label className="row" htmlFor={id} title={node.help}>
              <input type="checkbox" id={id} disabled={node.readOnly} checked={value === true} onChange={(e) => store.edit(path, e.target.checked)} /> {node.label}{' '}
              <MaturityBadge maturity={node.maturity} />
            </label>
            <OwnerBadge segments={path} />
          </span>
          <Help node={node} />
          <Messages messages={errors} fieldKey={fieldKey} />
        </div>
      );
    case 'select': {
      // A value outside the known ones (a newer server's) is shown, not dropped.
      const options = value !== undefined && !node.options!.includes(String(value)) ? [...node.options!, String(value)] : node.options!;
      input = (
        <select {...common} value={show(value)} onChange={(e) => store.edit(path, e.target.value === '' ? undefined : e.target.value)}>
          <option value="">—</option>
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
      break;
    }
    case 'number':
      input = <input type="number" {...common} value={text} onChange={(e) => onText(e.target.value)} />;
      break;
    case 'intOrString':
      input = <input {...common} placeholder="number, 25% or a port name" value={text} onChange={(e) => onText(e.target.value)} />;
      break;
    case 'quantity':
      input = <input {...common} placeholder="e.g. 500m, 2Gi" value={text} onChange={(e) => onText(e.target.value)} />;
      break;
    default:
      // A script or certificate keeps its line breaks (an <input> would drop them).
      input = text.includes('\n') ? (
        <textarea {...common} className={`${common.className} mono`} rows={Math.min(12, text.split('\n').length + 1)} value={text} onChange={(e) => onText(e.target.value)} />
      ) : (
        <input {...common} value={text} onChange={(e) => onText(e.target.value)} />
      );
  }
  return (
    <div className="form-field">
      <Label node={node} htmlFor={id} fieldKey={fieldKey} />
      {input}
      <Messages messages={errors} fieldKey={fieldKey} />
    </div>
  );
});

/** Several values from a fixed set (policyTypes, access modes): one checkbox each. */
const MultiSelect = memo(function MultiSelect({ node, fieldKey }: { node: FieldNode; fieldKey: string }) {
  const store = useFormStore();
  const path = segmentsOf(fieldKey);
  const value = (useValue(path) as string[] | undefined) ?? [];
  const errors = useErrorsUnder(fieldKey);
  const options = [...node.options!, ...value.filter((v) => !node.options!.includes(v))];
  // Ticking a value puts it in the order of the choices (Ingress before Egress), as written by hand.
  const toggle = (o: string, on: boolean) => store.edit(path, on ? options.filter((x) => x === o || value.includes(x)) : value.filter((v) => v !== o));
  return (
    <fieldset className="form-field form-choices" aria-invalid={!!errors}>
      <legend className="form-label" title={node.help}>
        {node.label} <MaturityBadge maturity={node.maturity} />
      </legend>
      <OwnerBadge segments={path} />
      <div className="row">
        {options.map((o) => (
          <label key={o} className="row">
            <input type="checkbox" id={inputId(`${fieldKey}.${o}`)} disabled={node.readOnly} checked={value.includes(o)} onChange={(e) => toggle(o, e.target.checked)} /> {o}
          </label>
        ))}
      </div>
      <Help node={node} />
      <Messages messages={errors} fieldKey={fieldKey} />
    </fieldset>
  );
});

/** Rows edited locally (a row may be half typed); the value follows on each change, and a value changed elsewhere resets the rows. */
function useRows<T, R>(value: T, toRows: (v: T) => R[], fromRows: (rows: R[]) => T, commit: (v: T) => void): [R[], (rows: R[]) => void] {
  const [rows, setRows] = useState(() => toRows(value));
  const ours = useRef(value);
  // By content: the form hands back a copy of what was written.
  if (!deepEqual(ours.current, value)) {
    ours.current = value;
    setRows(toRows(value));
  }
  return [
    rows,
    (next) => {
      setRows(next);
      const v = fromRows(next);
      ours.current = v;
      commit(v);
    },
  ];
}

/** A string map (labels, annotations, nodeSelector, matchLabels, resource lists) as key/value rows. */
const KeyValue = memo(function KeyValue({ node, fieldKey }: { node: FieldNode; fieldKey: string }) {
  const store = useFormStore();
  const path = segmentsOf(fieldKey);
  const value = useValue(path) as Record<string, unknown> | undefined;
  const errors = useErrorsUnder(fieldKey);
  const [rows, commit] = useRows(
    value,
    (v) => Object.entries(v ?? {}).map(([k, x]) => [k, show(x)] as [string, string]),
    (next) => {
      const entries = next.filter(([k]) => k.trim() !== '').map(([k, v]) => [k, typeof value?.[k] === 'number' && show(value[k]) === v ? value[k] : v]);
      return entries.length ? Object.fromEntries(entries) : undefined;
    },
    (v) => store.edit(path, v),
  );
  return (
    <div className="form-field">
      <Label node={node} />
      <div className="kv-rows">
        {rows.map(([k, v], i) => (
          <div className="row" key={i}>
            <input className="input mono" aria-label={`${node.label} key ${i + 1}`} value={k} disabled={node.readOnly} onChange={(e) => commit(rows.map((r, j) => (j === i ? [e.target.value, r[1]] : r)))} />
            <span className="muted">=</span>
            <input className="input mono" aria-label={`${node.label} value ${i + 1}`} value={v} disabled={node.readOnly} onChange={(e) => commit(rows.map((r, j) => (j === i ? [r[0], e.target.value] : r)))} />
            {k !== '' && <OwnerBadge segments={[...path, k]} />}
            {!node.readOnly && (
              <button type="button" className="btn small" aria-label={`Remove ${node.label} ${k || i + 1}`} onClick={() => commit(rows.filter((_, j) => j !== i))}>
                ×
              </button>
            )}
          </div>
        ))}
        {!node.readOnly && (
          <button type="button" className="btn small" onClick={() => commit([...rows, ['', '']])}>
            + Add {node.label.toLowerCase().replace(/s$/, '')}
          </button>
        )}
      </div>
      <Messages messages={errors} fieldKey={fieldKey} />
    </div>
  );
});

/** A list of strings or numbers (command, args, CIDRs, selector values), one input per item: an item may hold commas and spaces. */
const ScalarList = memo(function ScalarList({ node, fieldKey }: { node: FieldNode; fieldKey: string }) {
  const store = useFormStore();
  const path = segmentsOf(fieldKey);
  const value = useValue(path) as unknown[] | undefined;
  const errors = useErrorsUnder(fieldKey);
  const numeric = node.itemWidget === 'number';
  const [rows, commit] = useRows(
    value,
    (v) => (v ?? []).map(show),
    (next) => {
      const items = next.filter((t) => t !== '').map((t, i) => (show(value?.[i]) === t ? value![i] : numeric && Number.isFinite(Number(t)) ? Number(t) : t));
      return items.length ? items : undefined;
    },
    (v) => store.edit(path, v),
  );
  const singular = node.label.toLowerCase().replace(/ies$/, 'y').replace(/s$/, '');
  return (
    <div className="form-field">
      <Label node={node} htmlFor={inputId(`${fieldKey}.0`)} fieldKey={fieldKey} />
      <div className="kv-rows">
        {rows.map((t, i) => (
          <div className="row" key={i}>
            {t.includes('\n') ? (
              // A script item (`sh -c "…"`) keeps its line breaks.
              <textarea
                id={inputId(`${fieldKey}.${i}`)}
                className="input mono"
                rows={Math.min(12, t.split('\n').length + 1)}
                aria-label={`${node.label} ${i + 1}`}
                value={t}
                disabled={node.readOnly}
                onChange={(e) => commit(rows.map((r, j) => (j === i ? e.target.value : r)))}
              />
            ) : (
              <input
                id={inputId(`${fieldKey}.${i}`)}
                className="input mono"
                type={numeric ? 'number' : 'text'}
                aria-label={`${node.label} ${i + 1}`}
                value={t}
                disabled={node.readOnly}
                onChange={(e) => commit(rows.map((r, j) => (j === i ? e.target.value : r)))}
              />
            )}
            {!node.readOnly && (
              <button type="button" className="btn small" aria-label={`Remove ${node.label} ${i + 1}`} onClick={() => commit(rows.filter((_, j) => j !== i))}>
                ×
              </button>
            )}
          </div>
        ))}
        {!node.readOnly && (
          <button type="button" className="btn small" onClick={() => commit([...rows, ''])}>
            + Add {singular}
          </button>
        )}
      </div>
      <Messages messages={errors} fieldKey={fieldKey} />
    </div>
  );
});

/** Free-form values (lists of lists, maps of objects): YAML in a text area. */
const YamlField = memo(function YamlField({ node, fieldKey }: { node: FieldNode; fieldKey: string }) {
  const store = useFormStore();
  const path = segmentsOf(fieldKey);
  const value = useValue(path);
  const errors = useErrorsUnder(fieldKey);
  const display = (v: unknown) => (v === undefined ? '' : toYaml(v));
  const [problem, setProblem] = useState<string>();
  const [text, setText] = useState(() => display(value));
  const seen = useRef(value);
  // By content: the form hands back a copy of what was written, and the text typed stays as typed.
  if (!deepEqual(seen.current, value)) {
    seen.current = value;
    setText(display(value));
  }
  const id = inputId(fieldKey);
  return (
    <div className="form-field">
      <Label node={node} htmlFor={id} fieldKey={fieldKey} />
      <textarea
        id={id}
        className="input mono"
        rows={Math.min(12, Math.max(2, text.split('\n').length))}
        disabled={node.readOnly}
        value={text}
        placeholder="YAML"
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value === display(value)) return setProblem(undefined);
          const parsed = parseYaml(e.target.value);
          if (parsed.error) return setProblem(`Line ${parsed.error.line ?? '?'}: ${parsed.error.message}`);
          setProblem(undefined);
          seen.current = parsed.value ?? undefined;
          store.edit(path, parsed.value ?? undefined);
        }}
      />
      <Help node={node} />
      <Messages messages={problem} fieldKey={fieldKey} />
      <Messages messages={errors} fieldKey={fieldKey} />
    </div>
  );
});

const ObjectList = memo(function ObjectList({ node, fieldKey }: { node: FieldNode; fieldKey: string }) {
  const store = useFormStore();
  const path = segmentsOf(fieldKey);
  const length = useComputed(path, (v) => (Array.isArray(v) ? v.length : 0));
  const errors = useErrorsAt(fieldKey);
  const singular = node.label.replace(/ies$/, 'y').replace(/s$/, '');
  return (
    <fieldset className="form-group" data-key={fieldKey}>
      <legend>
        {node.label} <MaturityBadge maturity={node.maturity} />
      </legend>
      <Help node={node} />
      {Array.from({ length }, (_, i) => (
        <ListItem key={i} node={node} fieldKey={join(fieldKey, i)} index={i} singular={singular} />
      ))}
      {!node.readOnly && (
        <button type="button" className="btn small" onClick={() => store.put([...path, length], {})}>
          + Add {singular.toLowerCase()}
        </button>
      )}
      <Messages messages={errors} fieldKey={fieldKey} />
    </fieldset>
  );
});

const ListItem = memo(function ListItem({ node, fieldKey, index, singular }: { node: FieldNode; fieldKey: string; index: number; singular: string }) {
  const store = useFormStore();
  const listPath = segmentsOf(fieldKey).slice(0, -1);
  return (
    <div className="form-item" data-key={fieldKey}>
      <div className="form-item-head">
        <span className="muted">
          {singular} {index + 1}
        </span>
        {!node.readOnly && (
          <button type="button" className="btn small danger" onClick={() => store.remove(listPath, index)}>
            Remove {singular.toLowerCase()}
          </button>
        )}
      </div>
      <ObjectErrors node={node} fieldKey={fieldKey} />
      <Fields nodes={node.children} base={fieldKey} />
    </div>
  );
});

/** Errors of an object itself, and of fields it has that the schema does not know (they have no input to sit by). */
function ObjectErrors({ node, fieldKey }: { node: FieldNode; fieldKey: string }) {
  const own = useErrorsAt(fieldKey);
  const orphans = useErrorsOutside(fieldKey, node.children.map((c) => c.name));
  return (
    <>
      <Messages messages={own} fieldKey={fieldKey} />
      <Messages messages={orphans} fieldKey={fieldKey} />
    </>
  );
}

const ObjectSection = memo(function ObjectSection({ node, fieldKey, optional }: { node: FieldNode; fieldKey: string; optional: boolean }) {
  const store = useFormStore();
  const path = segmentsOf(fieldKey);
  const present = useComputed(path, (v) => v !== undefined);
  const errors = useErrorsUnder(fieldKey);
  if (optional && !present) {
    return (
      <div className="form-field" data-key={fieldKey}>
        <button type="button" className="btn small" onClick={() => store.put(path, {})} disabled={node.readOnly}>
          + Add {node.label.toLowerCase()}
        </button>{' '}
        <MaturityBadge maturity={node.maturity} />
        <Help node={node} />
        <Messages messages={errors} fieldKey={fieldKey} />
      </div>
    );
  }
  return (
    <fieldset className="form-group" data-key={fieldKey}>
      <legend>
        {node.label} <MaturityBadge maturity={node.maturity} />
        {optional && !node.readOnly && (
          <button type="button" className="btn small" style={{ marginLeft: 8 }} onClick={() => store.put(path, undefined)}>
            Remove
          </button>
        )}
      </legend>
      <Help node={node} />
      <ObjectErrors node={node} fieldKey={fieldKey} />
      <Fields nodes={node.children} base={fieldKey} />
    </fieldset>
  );
});

/** The fields the layout does not list first, mounted only once opened (opened by itself when one of them has an error). */
function MoreFields({ nodes, base }: { nodes: FieldNode[]; base: string }) {
  const store = useFormStore();
  const openKey = `${base}#more`;
  const [open, setOpen] = useState(() => store.opened.has(openKey));
  const hasError = useHasErrors(nodes.map((n) => join(base, n.name)));
  const shown = open || hasError;
  return (
    <div className={`form-more${shown ? ' open' : ''}`}>
      <button
        type="button"
        className="btn small link"
        aria-expanded={shown}
        onClick={() => {
          if (open) store.opened.delete(openKey);
          else store.opened.add(openKey);
          setOpen(!open);
        }}
      >
        {shown ? '▾' : '▸'} {nodes.length} more field{nodes.length === 1 ? '' : 's'}
        {!shown && <span className="muted"> — {nodes.map((n) => n.name).join(', ')}</span>}
      </button>
      {shown && <Fields nodes={nodes} base={base} all />}
    </div>
  );
}

function Field({ node, fieldKey, topLevel }: { node: FieldNode; fieldKey: string; topLevel?: boolean }) {
  switch (node.widget) {
    case 'object':
      return <ObjectSection node={node} fieldKey={fieldKey} optional={!topLevel} />;
    case 'objectList':
      return <ObjectList node={node} fieldKey={fieldKey} />;
    case 'keyValue':
      return <KeyValue node={node} fieldKey={fieldKey} />;
    case 'scalarList':
      return <ScalarList node={node} fieldKey={fieldKey} />;
    case 'multiSelect':
      return <MultiSelect node={node} fieldKey={fieldKey} />;
    case 'yaml':
      return <YamlField node={node} fieldKey={fieldKey} />;
    default:
      return <Scalar node={node} fieldKey={fieldKey} />;
  }
}

/**
 * The fields of one object. Those the layout lists first, and any the edit
 * began with a value in, are shown; the rest wait in "more fields".
 */
export const Fields = memo(function Fields({ nodes, base, topLevel = false, all = false }: { nodes: FieldNode[]; base: string; topLevel?: boolean; all?: boolean }) {
  const store = useFormStore();
  const path = segmentsOf(base);
  const startValue = (name: string) => getIn(store.stored, [...path, name]);
  const first = all ? nodes : nodes.filter((n) => n.primary || startValue(n.name) !== undefined);
  const more = all ? [] : nodes.filter((n) => !first.includes(n));
  return (
    <>
      {first.map((n) => (
        <Field key={n.name} node={n} fieldKey={join(base, n.name)} topLevel={topLevel} />
      ))}
      {more.length > 0 && <MoreFields nodes={more} base={base} />}
    </>
  );
});
