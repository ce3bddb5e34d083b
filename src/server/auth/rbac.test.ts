// The pure parts of RBAC: rule matching, the escalation comparator and its
// message, aggregation, and NodeRestriction's decisions.
import { describe, expect, it } from 'vitest';
import { nodeKind } from '../../kinds/node.ts';
import { podKind } from '../../kinds/pod.ts';
import { compactRule, escalationError, ruleAllows, uncoveredRules } from './rbac.ts';
import { aggregatedRules } from '../controllers/clusterroleaggregation.ts';
import { nodeRestriction } from './node.ts';

describe('ruleAllows', () => {
  const res = (verb: string, resource: string, extra: object = {}) => ({ verb, group: 'apps', resource, ...extra });
  it('matches verbs, groups, resources, subresources and names as upstream', () => {
    expect(ruleAllows(res('get', 'daemonsets'), { verbs: ['get'], apiGroups: ['apps'], resources: ['daemonsets'] })).toBe(true);
    expect(ruleAllows(res('get', 'daemonsets', { subresource: 'status' }), { verbs: ['get'], apiGroups: ['apps'], resources: ['daemonsets'] })).toBe(false);
    expect(ruleAllows(res('get', 'daemonsets', { subresource: 'status' }), { verbs: ['*'], apiGroups: ['*'], resources: ['*/status'] })).toBe(true);
    expect(ruleAllows(res('get', 'daemonsets', { name: 'a' }), { verbs: ['get'], apiGroups: ['apps'], resources: ['daemonsets'], resourceNames: ['a'] })).toBe(true);
    // resourceNames never match a request without a name (create, list).
    expect(ruleAllows(res('create', 'daemonsets'), { verbs: ['create'], apiGroups: ['apps'], resources: ['daemonsets'], resourceNames: ['a'] })).toBe(false);
    expect(ruleAllows({ verb: 'get', group: '', resource: '', path: '/apis/apps' }, { verbs: ['get'], nonResourceURLs: ['/apis/*'] })).toBe(true);
    expect(ruleAllows({ verb: 'get', group: '', resource: '', path: '/version' }, { verbs: ['get'], nonResourceURLs: ['/apis/*'] })).toBe(false);
  });
});

describe('escalation', () => {
  const owner = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] }];
  it('finds the rules the requester does not hold, verb by verb', () => {
    expect(uncoveredRules(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'nodes/status'] }])).toEqual([]);
    expect(uncoveredRules(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }])).toEqual([{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]);
    expect(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).toHaveLength(1);
  });

  it('says who is attempting to grant what, as upstream', () => {
    const user = { name: 'alice', groups: ['dev', 'system:authenticated'] };
    expect(escalationError(user, { rules: owner, errors: [] }, [{ verbs: ['create', 'delete'], apiGroups: ['apps'], resources: ['daemonsets'] }])).toBe(
      'user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["apps"], Resources:["daemonsets"], Verbs:["create" "delete"]}',
    );
    expect(compactRule({ verbs: ['get'], nonResourceURLs: ['/healthz'] })).toBe('{NonResourceURLs:["/healthz"], Verbs:["get"]}');
  });
});

describe('aggregation', () => {
  it('collects the rules of matching roles in name order, once each', () => {
    const sel = { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' };
    const rule = (r: string) => ({ verbs: ['get'], apiGroups: [''], resources: [r] });
    const view = { metadata: { name: 'view' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: sel }] } };
    const all = [view, { metadata: { name: 'b', labels: sel }, rules: [rule('pods'), rule('nodes')] }, { metadata: { name: 'a', labels: sel }, rules: [rule('nodes')] }, { metadata: { name: 'c' }, rules: [rule('secrets')] }];
    expect(aggregatedRules(view, all)).toEqual([rule('nodes'), rule('pods')]);
  });
});

describe('NodeRestriction', () => {
  const node = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  const pod = (nodeName: string) => ({ metadata: { name: 'p', namespace: 'd' }, spec: { nodeName } });
  it('confines a node to its own Node and the pods bound to it', () => {
    expect(() => nodeRestriction({ user: node, kind: nodeKind, operation: 'UPDATE', subresource: 'status', name: 'n1', object: { metadata: {} } })).not.toThrow();
    expect(() => nodeRestriction({ user: node, kind: nodeKind, operation: 'UPDATE', name: 'n2', object: { metadata: {} } })).toThrow('node "n1" is not allowed to modify node "n2"');
    expect(() => nodeRestriction({ user: node, kind: podKind, operation: 'UPDATE', subresource: 'status', name: 'p', object: pod('n1'), old: pod('n1') })).not.toThrow();
    expect(() => nodeRestriction({ user: node, kind: podKind, operation: 'UPDATE', subresource: 'status', name: 'p', object: pod('n1'), old: pod('n2') })).toThrow('can only update pod status for pods with spec.nodeName set to itself');
    expect(() => nodeRestriction({ user: node, kind: podKind, operation: 'DELETE', name: 'p', old: pod('n2') })).toThrow('can only delete pods with spec.nodeName set to itself');
    // Other users are not its business.
    expect(() => nodeRestriction({ user: { name: 'alice', groups: [] }, kind: nodeKind, operation: 'UPDATE', name: 'n2', object: { metadata: {} } })).not.toThrow();
  });
});
