import { describe, expect, it } from 'vitest';
import { isAppPath } from './approutes.ts';

const kinds = [
  { plural: 'nodes', scope: 'Cluster' as const },
  { plural: 'daemonsets', scope: 'Namespaced' as const },
];

describe('isAppPath', () => {
  it('knows the app pages, lists, details and the editor', () => {
    for (const p of ['/', '/settings', '/access', '/reachability', '/nodes', '/nodes/n1', '/daemonsets', '/daemonsets/ns/ds', '/new/nodes', '/edit/nodes/n1', '/edit/daemonsets/ns/ds']) {
      expect(isAppPath(p, kinds), p).toBe(true);
    }
  });
  it('refuses what kube-apiserver serves and shapes the app has no page for', () => {
    for (const p of ['/metrics', '/debug/pprof', '/logs', '/livez/etcd', '/settings/x', '/nodes/a/b', '/daemonsets/ns', '/edit/nodes', '/new/nodes/x', '/edit/pods/x', '/constructor', '/__proto__']) {
      expect(isAppPath(p, kinds), p).toBe(false);
    }
  });
});
