// How the editor saves (update or server-side apply), and what an apply
// would take over from other field managers.
import { FIELD_MANAGER, type Takeover } from '../../api/apply.ts';

export type SaveMode = 'apply' | 'update';

/** The choice between apply (only your changes, under the app's field manager) and update (the whole object). */
export function SaveModeToggle({ mode, onChange, named }: { mode: SaveMode; onChange: (m: SaveMode) => void; named: boolean }) {
  return (
    <div className="save-mode" role="radiogroup" aria-label="Save with">
      <label title={`PATCH application/apply-patch+yaml, fieldManager=${FIELD_MANAGER}: sends the fields you changed (and those ${FIELD_MANAGER} applied before); other fields keep their managers. Asks before taking a field another manager owns.`}>
        <input type="radio" name="save-mode" checked={mode === 'apply'} onChange={() => onChange('apply')} /> Save with server-side apply
      </label>
      <label title="JSON patch (POST for a new object): tests each field you could edit as you saw it, then sets your values; status written meanwhile does not matter. Managers keep only the fields this does not change.">
        <input type="radio" name="save-mode" checked={mode === 'update'} onChange={() => onChange('update')} /> Save with update
      </label>
      {mode === 'apply' && !named && <span className="muted">(a generated name is created by update)</span>}
    </div>
  );
}

/** The fields an apply would take from each other manager; confirming sends it with force. */
export function TakeoverList({ takeovers }: { takeovers: Takeover[] }) {
  const total = takeovers.reduce((n, t) => n + t.fields.length, 0);
  return (
    <div className="alert warn" role="group" aria-label="Fields to take over">
      <strong>
        {total === 1 ? 'One field you set is' : `${total} fields you set are`} managed by {takeovers.length === 1 ? 'another manager' : 'other managers'}. Applying takes {total === 1 ? 'it' : 'them'} over
        for {FIELD_MANAGER}:
      </strong>
      {takeovers.map((t) => (
        <div key={`${t.manager} ${t.detail}`} className="takeover" aria-label={`From ${t.manager}`} role="group">
          <div>
            From <code>{t.manager}</code> {t.detail && <span className="muted">({t.detail})</span>}
          </div>
          <ul className="change-list">
            {t.fields.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </div>
      ))}
      <div className="muted">
        A controller that manages such a field may set it back. Cancel to keep editing without taking anything.
      </div>
    </div>
  );
}
