// What-if for the NetworkPolicy editor: rendered by the edit page below its
// tabs. This file stays tiny (the edit page is in the first bundle); the panel
// and the worker client load on first use.
import { lazy, Suspense } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';

const WhatIfPanel = lazy(() => import('./WhatIfPanel.tsx'));

export function NetworkPolicyWhatIf({ draft, original }: { draft: KubeObject; original?: KubeObject }) {
  return (
    <Suspense fallback={<section className="panel rx-whatif" aria-label="What-if"><h2>Reachability change</h2><div className="body muted">computing…</div></section>}>
      <WhatIfPanel draft={draft} original={original} />
    </Suspense>
  );
}
