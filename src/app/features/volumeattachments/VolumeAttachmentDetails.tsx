// A VolumeAttachment readably: what is attached where, by which driver, and
// the last attach or detach error with its time and code.
import type { KubeObject } from '../../../kinds/kind.ts';
import { Age, Badge, KeyValues } from '../../components/common.tsx';

interface VolumeError {
  message?: string;
  time?: string;
  errorCode?: number;
}

function ErrorPanel({ title, error }: { title: string; error?: VolumeError }) {
  if (!error) return null;
  return (
    <div className="alert bad" role="alert">
      <strong>{title}:</strong> {error.message}
      <div className="muted" style={{ marginTop: 4 }}>
        {error.time && <Age time={error.time} suffix=" ago" />}
        {error.time && error.errorCode !== undefined && ' · '}
        {error.errorCode !== undefined && <>gRPC code {error.errorCode}</>}
      </div>
    </div>
  );
}

export function VolumeAttachmentDetails({ object }: { object: KubeObject }) {
  const spec = (object.spec ?? {}) as any;
  const status = (object.status ?? {}) as { attached?: boolean; attachmentMetadata?: Record<string, string>; attachError?: VolumeError; detachError?: VolumeError };
  const source = spec.source ?? {};
  return (
    <>
      <ErrorPanel title="Attach failed" error={status.attachError} />
      <ErrorPanel title="Detach failed" error={status.detachError} />
      <section className="panel">
        <h2>
          Attachment {status.attached ? <Badge tone="ok">attached</Badge> : object.metadata.deletionTimestamp ? <Badge tone="warn">detaching</Badge> : <Badge tone={status.attachError ? 'bad' : 'warn'}>not attached</Badge>}
        </h2>
        <div className="body">
          <dl className="kv">
            <dt>Attacher (driver)</dt>
            <dd className="mono">{spec.attacher}</dd>
            <dt>Node</dt>
            <dd className="mono">{spec.nodeName}</dd>
            <dt>Volume</dt>
            <dd>
              {source.persistentVolumeName ? (
                <>
                  PersistentVolume <span className="mono">{source.persistentVolumeName}</span>
                </>
              ) : source.inlineVolumeSpec ? (
                <>
                  inline volume <span className="mono">{source.inlineVolumeSpec.csi?.volumeHandle}</span> <Badge tone="info">beta</Badge>
                </>
              ) : (
                '—'
              )}
            </dd>
            <dt>Attachment metadata</dt>
            <dd>
              <KeyValues map={status.attachmentMetadata} />
            </dd>
          </dl>
        </div>
      </section>
    </>
  );
}
