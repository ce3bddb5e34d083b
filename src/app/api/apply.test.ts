import { describe, expect, it } from 'vitest';
import { KubeError } from './client.ts';
import { takeoversOf } from './apply.ts';

describe('takeoversOf', () => {
  const conflict = (causes: { reason?: string; message?: string; field?: string }[]) =>
    new KubeError(409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: 'Apply failed', details: { causes } });

  it('groups the fields of an apply conflict by manager, keeping how the server qualifies it', () => {
    const e = conflict([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.template.spec.containers[name="app"].image' },
      { reason: 'FieldManagerConflict', message: 'conflict with "daemon-set-controller" with subresource "status" using apps/v1', field: '.status.x' },
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.metadata.labels.team' },
      { reason: 'FieldManagerConflict', message: 'conflict with "say \\"hi\\""', field: '.data.a' },
    ]);
    expect(takeoversOf(e)).toEqual([
      { manager: 'kubectl-client-side-apply', detail: 'using apps/v1', fields: ['.spec.template.spec.containers[name="app"].image', '.metadata.labels.team'] },
      { manager: 'daemon-set-controller', detail: 'with subresource "status" using apps/v1', fields: ['.status.x'] },
      { manager: 'say "hi"', detail: '', fields: ['.data.a'] },
    ]);
  });

  it('is undefined for any other error, a resourceVersion conflict included', () => {
    expect(takeoversOf(conflict([]))).toBeUndefined();
    expect(takeoversOf(new KubeError(422, undefined))).toBeUndefined();
    expect(takeoversOf(new Error('x'))).toBeUndefined();
  });
});
