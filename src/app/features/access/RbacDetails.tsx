// The readable side of roles and bindings on their detail pages: a role's
// rules (with the roles an aggregated ClusterRole takes them from) and the
// bindings that grant it; a binding's role and subjects, each a link to
// what that subject may do.
import type { KubeObject } from '../../../kinds/kind.ts';
import { clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind } from '../../../kinds/rbac.ts';
import { formatLabelSelector, type LabelSelector } from '../../../lib/labels.ts';
import { useList } from '../../api/hooks.ts';
import { isForbidden } from '../../api/client.ts';
import { Badge } from '../../components/common.tsx';
import { Link } from '../../routes/router.tsx';
import { detailPath } from '../resources/types.ts';
import './access.css';
import { listOrAll, roleRules, subjectLabel, type BindingRef, type RoleRef, type Rule, type Subject } from './policy.ts';

const rbacKinds = [roleKind, clusterRoleKind, roleBindingKind, clusterRoleBindingKind];
/** The kind definition a roleRef or binding reference names. */
const rbacKindOf = (kind: string) => rbacKinds.find((k) => k.kind === kind) ?? clusterRoleKind;
/** Detail page of a role or binding, built as every other detail link is (detailPath). */
const refPath = (kind: string, name: string, namespace?: string) => detailPath(rbacKindOf(kind), { metadata: { name, namespace } });
export const rolePath = (r: RoleRef, namespace?: string) => refPath(r.kind, r.name, namespace);
export const bindingPath = (b: BindingRef) => refPath(b.kind, b.name, b.namespace);

/** The "what can this subject do" view of a subject. */
export function subjectPath(s: Subject) {
  const q = new URLSearchParams({ tab: 'subject', kind: s.kind ?? 'User', name: s.name ?? '' });
  if (s.kind === 'ServiceAccount' && s.namespace) q.set('sns', s.namespace);
  return `/access?${q}`;
}

export function SubjectLink({ subject }: { subject: Subject }) {
  return (
    <span className="subject">
      <Badge>{subject.kind}</Badge> <Link to={subjectPath(subject)}>{subjectLabel(subject)}</Link>
    </span>
  );
}

export function RulesTable({ rules, caption }: { rules: { rule: Rule; from?: string }[]; caption: string }) {
  if (!rules.length) return <p className="muted">No rules.</p>;
  const showFrom = rules.some((r) => r.from);
  const showNames = rules.some((r) => r.rule.resourceNames?.length);
  return (
    <table className="simple access rules">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Verbs</th>
          <th scope="col">API groups</th>
          <th scope="col">Resources</th>
          {showNames && <th scope="col">Names</th>}
          {showFrom && <th scope="col">From</th>}
        </tr>
      </thead>
      <tbody>
        {rules.map(({ rule, from }, i) => (
          <tr key={i}>
            <td className="mono nowrap">{listOrAll(rule.verbs)}</td>
            <td className="mono">{rule.nonResourceURLs?.length ? <span className="muted">non-resource</span> : listOrAll(rule.apiGroups)}</td>
            <td className="mono">{rule.nonResourceURLs?.length ? listOrAll(rule.nonResourceURLs) : listOrAll(rule.resources)}</td>
            {showNames && <td className="mono">{listOrAll(rule.resourceNames, 'any')}</td>}
            {showFrom && <td>{from ? <Link to={rolePath({ kind: 'ClusterRole', name: from })}>{from}</Link> : <span className="muted">own rule</span>}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Bindings that grant a role: ClusterRoleBindings, and RoleBindings (in the role's namespace for a Role, anywhere for a ClusterRole). */
function BoundBy({ role }: { role: RoleRef & { namespace?: string } }) {
  const crbs = useList(clusterRoleBindingKind);
  const rbs = useList(roleBindingKind, role.kind === 'Role' ? role.namespace : undefined);
  const refersToRole = (b: KubeObject) => {
    const ref = b.roleRef as { kind?: string; name?: string } | undefined;
    return ref?.kind === role.kind && ref.name === role.name;
  };
  const bindings: { b: KubeObject; ref: BindingRef }[] = [
    ...(role.kind === 'ClusterRole' ? crbs.items.filter(refersToRole).map((b) => ({ b, ref: { kind: 'ClusterRoleBinding' as const, name: b.metadata.name! } })) : []),
    ...rbs.items.filter(refersToRole).map((b) => ({ b, ref: { kind: 'RoleBinding' as const, name: b.metadata.name!, namespace: b.metadata.namespace } })),
  ];
  const denied = [crbs, rbs].some((l) => isForbidden(l.error));
  return (
    <section className="panel">
      <h2>Granted by</h2>
      <div className="body">
        {denied && <div className="alert warn">You may not list every binding, so some that grant this role may be missing.</div>}
        {!bindings.length ? (
          <p className="muted">No binding grants this role{denied ? ' among those you may read' : ''}.</p>
        ) : (
          <table className="simple access">
            <caption className="visually-hidden">Bindings that grant this role</caption>
            <thead>
              <tr>
                <th scope="col">Binding</th>
                <th scope="col">Where</th>
                <th scope="col">Subjects</th>
              </tr>
            </thead>
            <tbody>
              {bindings.map(({ b, ref }) => (
                <tr key={`${ref.kind}/${ref.namespace}/${ref.name}`}>
                  <td>
                    <Badge>{ref.kind}</Badge> <Link to={bindingPath(ref)}>{ref.name}</Link>
                  </td>
                  <td>{ref.namespace ? `namespace ${ref.namespace}` : 'cluster-wide'}</td>
                  <td>
                    <div className="chips">
                      {((b.subjects as Subject[] | undefined) ?? []).map((s, i) => (
                        <SubjectLink key={i} subject={s.kind === 'ServiceAccount' ? { ...s, namespace: s.namespace || ref.namespace } : s} />
                      ))}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

export function RoleDetails({ object }: { object: KubeObject }) {
  const isCluster = !object.metadata.namespace;
  const ref: RoleRef = { kind: isCluster ? 'ClusterRole' : 'Role', name: object.metadata.name! };
  const clusterRoles = useList(clusterRoleKind);
  const selectors = (object.aggregationRule as { clusterRoleSelectors?: LabelSelector[] } | undefined)?.clusterRoleSelectors;
  // For an aggregated role, the rules as RBAC will grant them once the controller has aggregated: from the live roles.
  const effective = isCluster ? roleRules({ clusterRoles: clusterRoles.items.length ? clusterRoles.items : [object] }, ref) : { rules: ((object.rules as Rule[]) ?? []).map((rule) => ({ rule })) };
  const own = (object.rules as Rule[] | undefined) ?? [];
  return (
    <>
      {selectors && (
        <section className="panel">
          <h2>
            Aggregated <Badge tone="info">aggregationRule</Badge>
          </h2>
          <div className="body">
            <p style={{ marginTop: 0 }}>
              This ClusterRole takes the rules of every ClusterRole whose labels match one of these selectors; the aggregation controller writes them into <code>rules</code>, so
              edits to <code>rules</code> here are overwritten.
            </p>
            <div className="chips">
              {selectors.map((s, i) => (
                <span key={i} className="chip">
                  {formatLabelSelector(s) || 'everything'}
                </span>
              ))}
            </div>
          </div>
        </section>
      )}
      <section className="panel">
        <h2>Rules</h2>
        <div className="body">
          <RulesTable rules={selectors ? effective.rules : own.map((rule) => ({ rule }))} caption="Rules this role grants" />
        </div>
      </section>
      <BoundBy role={{ ...ref, namespace: object.metadata.namespace }} />
    </>
  );
}

export function BindingDetails({ object }: { object: KubeObject }) {
  const ref = (object.roleRef as { kind?: 'Role' | 'ClusterRole'; name?: string } | undefined) ?? {};
  const subjects = (object.subjects as Subject[] | undefined) ?? [];
  const ns = object.metadata.namespace;
  const kind = rbacKindOf(ref.kind ?? 'ClusterRole');
  return (
    <section className="panel">
      <h2>Grants</h2>
      <div className="body">
        <dl className="kv">
          <dt>Role</dt>
          <dd>
            <Badge>{kind.kind}</Badge> {ref.name ? <Link to={rolePath({ kind: ref.kind ?? 'ClusterRole', name: ref.name }, ns)}>{ref.name}</Link> : <span className="muted">none</span>}
          </dd>
          <dt>Where</dt>
          <dd>{ns ? `in namespace ${ns} only${ref.kind === 'ClusterRole' ? ' (a ClusterRole granted by a RoleBinding holds in its namespace only)' : ''}` : 'cluster-wide, in every namespace'}</dd>
          <dt>To</dt>
          <dd>
            {subjects.length ? (
              <div className="chips">
                {subjects.map((s, i) => (
                  <SubjectLink key={i} subject={s.kind === 'ServiceAccount' ? { ...s, namespace: s.namespace || ns } : s} />
                ))}
              </div>
            ) : (
              <span className="muted">nobody (no subjects)</span>
            )}
          </dd>
        </dl>
      </div>
    </section>
  );
}
