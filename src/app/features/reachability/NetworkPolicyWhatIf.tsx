// What-if for the NetworkPolicy editor: rendered by the edit page below its
// tabs. This file stays tiny (the edit page is in the first bundle); the panel
// and the worker client load on first use.
import { lazy, Suspense } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';

const WhatIfPanel = lazy(() => import('./WhatIfPanel.tsx'));

export function NetworkPolicyWhatIf({ draft, original, invalid }: { draft: KubeObject; original?: KubeObject; invalid?: boolean }) {
  // A draft the server would refuse has no meaning to preview (and may not even have the shape of a policy).
  if (invalid) {
    return (
      <section className="panel rx-whatif" aria-label="What-if">
        <h2>Reachability change</h2>
        <div className="body muted" data-testid="whatif-waiting">
          Waiting for a valid policy: the preview shows once the errors in the draft are fixed.
        </div>
      </section>
    );
  }
  return (
    <Suspense fallback={<section className="panel rx-whatif" aria-label="What-if"><h2>Reachability change</h2><div className="body muted">computing…</div></section>}>
      <WhatIfPanel draft={draft} original={original} />
    </Suspense>
  );
}
