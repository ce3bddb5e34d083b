// Renders a field tree as react-hook-form inputs. Values live in the form
// (the whole object, so fields the form does not show are kept); errors come
// from the kind's own validation through zodResolver, at Kubernetes paths.
import { useState } from 'react';
import { useFormContext, useWatch, type FieldErrors } from 'react-hook-form';
import { MaturityBadge } from '../../components/common.tsx';
import { parseIntOrString, type FieldNode } from './fields.ts';

function errorAt(errors: FieldErrors, name: string): string | undefined {
  let cur: any = errors;
  for (const part of name.split('.')) {
    cur = cur?.[part];
    if (!cur) return undefined;
  }
  return typeof cur?.message === 'string' ? cur.message : undefined;
}

function Label({ node, htmlFor }: { node: FieldNode; htmlFor?: string }) {
  return (
    <label className="form-label" htmlFor={htmlFor} title={node.help}>
      {node.label} <MaturityBadge maturity={node.maturity} />
    </label>
  );
}

function Help({ node }: { node: FieldNode }) {
  return node.help ? <div className="form-help">{node.help}</div> : null;
}

function FieldError({ name }: { name: string }) {
  const { formState } = useFormContext();
  const message = errorAt(formState.errors, name);
  return message ? (
    <div className="field-error" role="alert" data-field={name}>
      {message}
    </div>
  ) : null;
}

const inputId = (name: string) => `f-${name.replace(/\./g, '-')}`;

function Scalar({ node, name }: { node: FieldNode; name: string }) {
  const { register, formState } = useFormContext();
  const invalid = !!errorAt(formState.errors, name);
  const id = inputId(name);
  const common = { id, 'aria-invalid': invalid, disabled: node.readOnly, className: `input${invalid ? ' invalid' : ''}` };
  let input;
  switch (node.widget) {
    case 'checkbox':
      return (
        <div className="form-field checkbox">
          <label className="row" htmlFor={id} title={node.help}>
            <input type="checkbox" id={id} disabled={node.readOnly} {...register(name)} /> {node.label} <MaturityBadge maturity={node.maturity} />
          </label>
          <Help node={node} />
          <FieldError name={name} />
        </div>
      );
    case 'select':
      input = (
        <select {...common} {...register(name, { setValueAs: (v) => (v === '' ? undefined : v) })}>
          <option value="">—</option>
          {node.options!.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
      break;
    case 'number':
      input = <input type="number" {...common} {...register(name, { setValueAs: (v) => (v === '' || v === undefined || v === null ? undefined : Number(v)) })} />;
      break;
    case 'intOrString':
      input = <input {...common} placeholder="number, 25% or a port name" {...register(name, { setValueAs: (v) => (typeof v === 'string' ? parseIntOrString(v) : v) })} />;
      break;
    case 'quantity':
      input = <input {...common} placeholder="e.g. 500m, 2Gi" {...register(name, { setValueAs: (v) => (v === '' ? undefined : v) })} />;
      break;
    default:
      input = <input {...common} {...register(name, { setValueAs: (v) => (v === '' ? undefined : v) })} />;
  }
  return (
    <div className="form-field">
      <Label node={node} htmlFor={id} />
      {input}
      <FieldError name={name} />
    </div>
  );
}

/** A string list as comma-separated text (CIDR lists, selector values, policy types…). */
function StringList({ node, name }: { node: FieldNode; name: string }) {
  const { setValue, control } = useFormContext();
  const value = useWatch({ control, name }) as string[] | undefined;
  const [text, setText] = useState((value ?? []).join(', '));
  const id = inputId(name);
  return (
    <div className="form-field">
      <Label node={node} htmlFor={id} />
      <input
        id={id}
        className="input"
        disabled={node.readOnly}
        placeholder="comma-separated"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          const items = e.target.value.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
          setValue(name, items.length ? items : undefined, { shouldDirty: true, shouldValidate: true });
        }}
      />
      <FieldError name={name} />
    </div>
  );
}

/** A string map (labels, annotations, nodeSelector, matchLabels) as key/value rows. */
function KeyValue({ node, name }: { node: FieldNode; name: string }) {
  const { setValue, control } = useFormContext();
  const value = useWatch({ control, name }) as Record<string, string> | undefined;
  const [rows, setRows] = useState<[string, string][]>(() => Object.entries(value ?? {}));
  const commit = (next: [string, string][]) => {
    setRows(next);
    const obj = Object.fromEntries(next.filter(([k]) => k.trim() !== ''));
    setValue(name, Object.keys(obj).length ? obj : undefined, { shouldDirty: true, shouldValidate: true });
  };
  return (
    <div className="form-field">
      <Label node={node} />
      <div className="kv-rows">
        {rows.map(([k, v], i) => (
          <div className="row" key={i}>
            <input className="input mono" aria-label={`${node.label} key ${i + 1}`} value={k} disabled={node.readOnly} onChange={(e) => commit(rows.map((r, j) => (j === i ? [e.target.value, r[1]] : r)))} />
            <span className="muted">=</span>
            <input className="input mono" aria-label={`${node.label} value ${i + 1}`} value={v} disabled={node.readOnly} onChange={(e) => commit(rows.map((r, j) => (j === i ? [r[0], e.target.value] : r)))} />
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
      <FieldError name={name} />
    </div>
  );
}

function ObjectList({ node, name }: { node: FieldNode; name: string }) {
  const { setValue, getValues, control } = useFormContext();
  const items = (useWatch({ control, name }) as unknown[] | undefined) ?? [];
  const singular = node.label.replace(/ies$/, 'y').replace(/s$/, '');
  return (
    <fieldset className="form-group">
      <legend>
        {node.label} <MaturityBadge maturity={node.maturity} />
      </legend>
      <Help node={node} />
      {items.map((_, i) => (
        <div className="form-item" key={i}>
          <div className="form-item-head">
            <span className="muted">
              {singular} {i + 1}
            </span>
            {!node.readOnly && (
              <button
                type="button"
                className="btn small danger"
                onClick={() => {
                  const next = (getValues(name) as unknown[]).filter((_, j) => j !== i);
                  setValue(name, next.length ? next : undefined, { shouldDirty: true, shouldValidate: true });
                }}
              >
                Remove {singular.toLowerCase()}
              </button>
            )}
          </div>
          <Fields nodes={node.children!} base={`${name}.${i}`} />
        </div>
      ))}
      {!node.readOnly && (
        <button type="button" className="btn small" onClick={() => setValue(name, [...((getValues(name) as unknown[]) ?? []), {}], { shouldDirty: true })}>
          + Add {singular.toLowerCase()}
        </button>
      )}
      <FieldError name={name} />
    </fieldset>
  );
}

function ObjectSection({ node, name, optional }: { node: FieldNode; name: string; optional: boolean }) {
  const { setValue, control } = useFormContext();
  const value = useWatch({ control, name });
  if (optional && value === undefined) {
    return (
      <div className="form-field">
        <button type="button" className="btn small" onClick={() => setValue(name, {}, { shouldDirty: true })} disabled={node.readOnly}>
          + Add {node.label.toLowerCase()}
        </button>{' '}
        <MaturityBadge maturity={node.maturity} />
        <Help node={node} />
      </div>
    );
  }
  return (
    <fieldset className="form-group">
      <legend>
        {node.label} <MaturityBadge maturity={node.maturity} />
        {optional && !node.readOnly && (
          <button type="button" className="btn small" style={{ marginLeft: 8 }} onClick={() => setValue(name, undefined, { shouldDirty: true, shouldValidate: true })}>
            Remove
          </button>
        )}
      </legend>
      <Help node={node} />
      <Fields nodes={node.children!} base={name} />
      <FieldError name={name} />
    </fieldset>
  );
}

export function Fields({ nodes, base, topLevel = false }: { nodes: FieldNode[]; base: string; topLevel?: boolean }) {
  return (
    <>
      {nodes.map((n) => {
        const name = base ? `${base}.${n.name}` : n.name;
        switch (n.widget) {
          case 'object':
            return <ObjectSection key={name} node={n} name={name} optional={!topLevel} />;
          case 'objectList':
            return <ObjectList key={name} node={n} name={name} />;
          case 'keyValue':
            return <KeyValue key={name} node={n} name={name} />;
          case 'stringList':
            return <StringList key={name} node={n} name={name} />;
          default:
            return <Scalar key={name} node={n} name={name} />;
        }
      })}
    </>
  );
}
