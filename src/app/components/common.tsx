// Small shared pieces: relative ages that tick, badges, label chips, errors,
// a confirmation dialog, and read-only YAML.
import { useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { stringify } from 'yaml';
import { humanDuration } from '../../lib/duration.ts';
import { errorText } from '../api/client.ts';

// One clock for every relative time on screen.
const tickers = new Set<() => void>();
let now = Date.now();
setInterval(() => {
  now = Date.now();
  tickers.forEach((t) => t());
}, 5000);
export const useNow = () => useSyncExternalStore((l) => (tickers.add(l), () => tickers.delete(l)), () => now);

export function Age({ time, suffix = '' }: { time?: string; suffix?: string }) {
  const t = useNow();
  if (!time) return <span className="muted">—</span>;
  return (
    <time dateTime={time} title={new Date(time).toLocaleString()}>
      {humanDuration(t - Date.parse(time))}
      {suffix}
    </time>
  );
}

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | undefined;
export const Badge = ({ tone, children, title }: { tone?: Tone; children: ReactNode; title?: string }) => (
  <span className={`badge ${tone ?? ''}`} title={title}>
    {children}
  </span>
);

export function MaturityBadge({ maturity }: { maturity?: string }) {
  if (!maturity) return null;
  const tone: Tone = maturity === 'deprecated' ? 'warn' : 'info';
  return <Badge tone={tone}>{maturity}</Badge>;
}

export function KeyValues({ map, empty = 'none' }: { map?: Record<string, string>; empty?: string }) {
  const entries = Object.entries(map ?? {});
  if (!entries.length) return <span className="muted">{empty}</span>;
  return (
    <div className="chips">
      {entries.map(([k, v]) => (
        <span className="chip" key={k} title={`${k}=${v}`}>
          {v === '' ? k : `${k}=${v}`}
        </span>
      ))}
    </div>
  );
}

/** A Kubernetes Status (or any error) shown the way the server said it. */
/**
 * A CamelCase name (`MemoryPressure`, `KubeletHasSufficientMemory`) that may
 * wrap only between its words, never inside one (cells elsewhere break
 * anywhere so long values do not overflow).
 */
export function CamelWords({ text }: { text?: string }) {
  const words = (text ?? '').split(/(?<=[a-z0-9])(?=[A-Z])/);
  return (
    <span className="words">
      {words.map((w, i) => (
        <span key={i}>
          {i > 0 && <wbr />}
          {w}
        </span>
      ))}
    </span>
  );
}

/** What a panel says of a list the user may not read. */
export function NoAccess() {
  return <p className="muted">You may not list these.</p>;
}

export function ErrorAlert({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div className="alert bad" role="alert">
      {errorText(error)}
    </div>
  );
}

export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  /** Cancel's label (Stop, while work it can stop goes on: it stays enabled when `busy`); none once only Done is left. */
  cancelLabel?: string | null;
  stoppable?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} className="modal" onCancel={(e) => (e.preventDefault(), props.onCancel())} aria-labelledby="confirm-title">
      <div className="body">
        <h2 id="confirm-title">{props.title}</h2>
        {props.children}
      </div>
      <div className="actions">
        {props.cancelLabel !== null && (
          <button className="btn" onClick={props.onCancel} disabled={props.busy && !props.stoppable}>
            {props.cancelLabel ?? 'Cancel'}
          </button>
        )}
        <button className={`btn ${props.danger ? 'danger solid' : 'primary'}`} onClick={props.onConfirm} disabled={props.busy} autoFocus>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** Read-only YAML with light highlighting; the editor (Monaco) is loaded only where editing happens. */
export function YamlView({ value }: { value: unknown }) {
  const lines = useMemo(() => stringify(value, { lineWidth: 0 }).split('\n'), [value]);
  return (
    <pre className="yaml" aria-label="YAML">
      {lines.map((line, i) => {
        const m = line.match(/^(\s*-?\s*)([^:\s][^:]*?):(\s.*|$)/);
        return (
          <div key={i}>
            {m ? (
              <>
                {m[1]}
                <span className="k">{m[2]}</span>:<span className="s">{m[3]}</span>
              </>
            ) : (
              line || ' '
            )}
          </div>
        );
      })}
    </pre>
  );
}

export function Meter({ value, max, label }: { value: number; max: number; label: string }) {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 0;
  return (
    <div className="meter" role="progressbar" aria-label={label} aria-valuenow={value} aria-valuemin={0} aria-valuemax={max}>
      <span style={{ width: `${pct}%` }} />
    </div>
  );
}

/**
 * Work a dialog's Stop ends (`start` gives each run its signal, `stop` ends the last), ended too when
 * the page is left, as Ctrl-C ends kubectl drain: a drain going on unseen could not be stopped.
 */
export function useStoppable() {
  const current = useRef<AbortController>(undefined);
  useEffect(() => () => current.current?.abort(), []);
  return useMemo(() => ({ start: () => (current.current = new AbortController()).signal, stop: () => current.current?.abort() }), []);
}
