// @vitest-environment jsdom
// The nodes a DaemonSet leaves out go by reason (a DaemonSet on 2 of 5000
// nodes drew a row per node: 25,000 elements); the nodes left out that still
// have a daemon pod and the orphan pods keep rows of their own, MAX_ROWS of
// each; orphans are judged only once every node is read.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { ExcludedNodes, MAX_ROWS, byReason } from './ExcludedNodes.tsx';
import type { ExcludedNode, PodCell } from './rollout.ts';

const cell = (name: string): PodCell => ({ name, uid: `uid-${name}`, state: 'available', revision: 'new', phase: 'Running', ready: true, restarts: 0, createdAt: 0 });
const left = (n: number, reason: string, from = 0): ExcludedNode[] =>
  Array.from({ length: n }, (_, i) => ({ nodeName: `node-${String(from + i).padStart(5, '0')}`, reason, pods: [], misscheduled: false }));

describe('the nodes left out', () => {
  it('go by reason, the most first, each with its count and its nodes as one text', () => {
    const excluded = [...left(3, 'taint gpu=true:NoSchedule is not tolerated'), ...left(4995, 'node(s) didn\u2019t match the node selector', 3)];
    expect(byReason(excluded).map((g) => [g.reason, g.nodes.length])).toEqual([
      ['node(s) didn\u2019t match the node selector', 4995],
      ['taint gpu=true:NoSchedule is not tolerated', 3],
    ]);
    const view = render(<ExcludedNodes excluded={excluded} orphans={[]} nodesComplete />);
    const rows = view.container.querySelectorAll('[data-excluded-reason]');
    expect(rows).toHaveLength(2);
    expect(rows[0].textContent).toContain('4995');
    expect(rows[1].querySelector('.excluded-names')!.textContent).toBe('node-00000, node-00001, node-00002');
    expect(view.container.querySelector('summary')!.textContent).toContain('4,998 nodes left out');
    // A handful of elements, not one row per node.
    expect(view.container.querySelectorAll('*').length).toBeLessThan(40);
    expect(view.container.querySelector('details')!.open).toBe(false);
  });

  it('list the nodes with a daemon pod still there, the first MAX_ROWS, and open when one is misscheduled', () => {
    const withPods: ExcludedNode[] = Array.from({ length: MAX_ROWS + 5 }, (_, i) => ({ nodeName: `bad-${i}`, reason: 'node(s) didn\u2019t match the node selector', pods: [cell(`agent-${i}`)], misscheduled: i === 0 }));
    const view = render(<ExcludedNodes excluded={[...left(10, 'node(s) didn\u2019t match the node selector'), ...withPods]} orphans={[]} nodesComplete />);
    expect(view.container.querySelectorAll('[data-excluded]')).toHaveLength(MAX_ROWS);
    expect(view.container.querySelector('[data-excluded="bad-0"]')!.textContent).toContain('misscheduled: agent-0');
    expect(view.container.querySelector('[data-excluded="bad-1"]')!.textContent).toContain('pod kept: agent-1');
    expect(view.container.textContent).toContain('and 5 more nodes left out with a pod');
    expect(view.container.querySelector('details')!.open).toBe(true);
  });

  it('show pods bound to no node only once every node is read', () => {
    const orphans = Array.from({ length: MAX_ROWS + 2 }, (_, i) => cell(`lost-${i}`));
    // The pods' list complete, the nodes' not yet: every pod looks bound to no node it knows.
    const loading = render(<ExcludedNodes excluded={[]} orphans={orphans} nodesComplete={false} />);
    expect(loading.container.innerHTML).toBe('');
    loading.unmount();
    const read = render(<ExcludedNodes excluded={[]} orphans={orphans} nodesComplete />);
    expect(read.container.querySelectorAll('[data-orphan]')).toHaveLength(MAX_ROWS);
    expect(read.container.textContent).toContain(`${MAX_ROWS + 2} pods bound to no node`);
    expect(read.container.textContent).toContain('and 2 more pods bound to no node');
    expect(read.container.querySelector('details')!.open).toBe(true);
  });
});
