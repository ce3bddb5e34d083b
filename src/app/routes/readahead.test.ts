// @vitest-environment jsdom
// Which addresses are list pages, whose first page is sent early.
import { describe, expect, it } from 'vitest';
import { listOfAddress, objectListOfAddress } from './readahead.ts';

describe('listOfAddress', () => {
  it('names the kind and namespace of a list page only', () => {
    expect(listOfAddress('/nodes', '')).toMatchObject({ kind: { kind: 'Node' }, namespace: undefined });
    expect(listOfAddress('/pods', '?ns=web')).toMatchObject({ kind: { kind: 'Pod' }, namespace: 'web' });
    // A cluster-scoped kind has no namespace, whatever the address says.
    expect(listOfAddress('/nodes', '?ns=web')?.namespace).toBeUndefined();
    for (const [path, search] of [['/', ''], ['/nodes/node-1', ''], ['/pods/web/p', ''], ['/edit/nodes/n', ''], ['/events', ''], ['/settings', ''], ['/nothing', '']]) {
      expect(listOfAddress(path, search)).toBeUndefined();
    }
  });

  it('names the list a detail page reads its object from', () => {
    expect(objectListOfAddress('/daemonsets/web/agent')).toMatchObject({ kind: { kind: 'DaemonSet' }, namespace: 'web', name: 'agent' });
    expect(objectListOfAddress('/nodes/node-1')).toMatchObject({ kind: { kind: 'Node' }, namespace: undefined, name: 'node-1' });
    for (const path of ['/', '/nodes', '/daemonsets/web', '/nodes/a/b', '/edit/nodes/n', '/events/x', '/nothing/a/b']) expect(objectListOfAddress(path)).toBeUndefined();
  });
});
