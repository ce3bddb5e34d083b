// /access: who may do a verb on a resource (from the bindings and roles the
// user can read), what the signed-in user may do (SelfSubjectRulesReview,
// `kubectl auth can-i --list`), and what any user, group or service account
// may do (from the bindings). Every choice lives in the URL.
import { useMemo } from 'react';
import type { KindDefinition } from '../../../kinds/kind.ts';
import { kinds } from '../../../kinds/registry.ts';
import { STANDARD_VERBS } from '../../../kinds/kind.ts';
import { useCanI, useRulesReview, useWhoAmI } from '../../api/access.ts';
import { Badge, ErrorAlert } from '../../components/common.tsx';
import { Link, useSearchParam } from '../../routes/router.tsx';
import { IdentityLine } from '../settings/Credentials.tsx';
import { identityOf, qualifiedResource, rulesOf, SYSTEM_MASTERS, whoCan, type Grant, type ResourceRequest } from './policy.ts';
import { bindingPath, rolePath, RulesTable, SubjectLink } from './RbacDetails.tsx';
import { usePolicy, type PolicyState } from './usePolicy.ts';

const TABS = [
  ['who', 'Who can…'],
  ['mine', 'What may I do'],
  ['subject', 'What may a subject do'],
] as const;

/** `daemonsets.apps` or `nodes/status`: a resource as kubectl names it, for the picker. */
const resourceName = (k: KindDefinition, sub?: string) => `${k.plural}${k.group ? `.${k.group}` : ''}${sub ? `/${sub}` : ''}`;
const RESOURCES = kinds.flatMap((k) => [{ kind: k, sub: undefined as string | undefined }, ...Object.keys(k.subresources ?? {}).map((sub) => ({ kind: k, sub }))]);
const VERBS = [...new Set([...STANDARD_VERBS, 'escalate', 'bind', 'impersonate'])];

export default function AccessPage() {
  const [tab, setTab] = useSearchParam('tab');
  const current = TABS.find(([t]) => t === tab)?.[0] ?? 'who';
  return (
    <>
      <div className="page-head">
        <h1>Access</h1>
        <span className="sub">who may do what, from the cluster's roles and bindings</span>
      </div>
      <div className="tabs" role="tablist">
        {TABS.map(([t, label]) => (
          <button key={t} role="tab" aria-selected={current === t} onClick={() => setTab(t === 'who' ? '' : t)}>
            {label}
          </button>
        ))}
      </div>
      {current === 'who' && <WhoCanView />}
      {current === 'mine' && <MineView />}
      {current === 'subject' && <SubjectView />}
    </>
  );
}

function Unreadable({ state }: { state: PolicyState }) {
  if (!state.unreadable.length) return null;
  return (
    <div className="alert warn" role="status">
      The answer may be incomplete: {state.unreadable.map((u) => u.message).join('; ')}.
    </div>
  );
}

function Through({ g }: { g: Grant }) {
  return (
    <>
      <Link to={bindingPath(g.binding)}>{g.binding.kind === 'RoleBinding' ? `${g.binding.namespace}/${g.binding.name}` : g.binding.name}</Link>
      <span className="muted"> → {g.role.kind} </span>
      <Link to={rolePath(g.role, g.binding.namespace)}>{g.role.name}</Link>
      {g.aggregatedFrom && (
        <span className="muted">
          {' '}
          (aggregated from <Link to={rolePath({ kind: 'ClusterRole', name: g.aggregatedFrom })}>{g.aggregatedFrom}</Link>)
        </span>
      )}
    </>
  );
}

const where = (g: Grant) => (g.namespace ? `namespace ${g.namespace}` : 'cluster-wide');

function WhoCanView() {
  const [verb, setVerb] = useSearchParam('verb');
  const [resource, setResource] = useSearchParam('resource');
  const [name, setName] = useSearchParam('name');
  const [ns] = useSearchParam('ns');
  const v = verb || 'delete';
  const picked = RESOURCES.find((r) => resourceName(r.kind, r.sub) === resource) ?? RESOURCES[0];
  const namespaced = picked.kind.scope === 'Namespaced';
  const namespace = namespaced ? ns || undefined : undefined;
  const state = usePolicy(namespace);
  const req: ResourceRequest = { verb: v, group: picked.kind.group, resource: picked.kind.plural, subresource: picked.sub, name: name || undefined, namespace, namespaced };
  const answer = useMemo(() => whoCan(state.policy, req), [state.policy, v, picked, name, namespace]); // eslint-disable-line react-hooks/exhaustive-deps
  const mine = useCanI(v, picked.kind, namespace, picked.sub, name || undefined);
  const me = useWhoAmI().data;
  const mastersListed = answer.subjects.some((s) => s.subject.kind === 'Group' && s.subject.name === SYSTEM_MASTERS);

  return (
    <>
      <form className="toolbar" aria-label="Request" onSubmit={(e) => e.preventDefault()}>
        <label className="field">
          <span>Verb</span>
          <select className="input" value={v} onChange={(e) => setVerb(e.target.value)}>
            {VERBS.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Resource</span>
          <select className="input" value={resourceName(picked.kind, picked.sub)} onChange={(e) => setResource(e.target.value)}>
            {RESOURCES.map((r) => (
              <option key={resourceName(r.kind, r.sub)}>{resourceName(r.kind, r.sub)}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Name</span>
          <input className="input" placeholder="any" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <span className="muted field-note">{namespaced ? (namespace ? `in namespace ${namespace}` : 'in any namespace (pick one above to narrow)') : 'cluster-scoped'}</span>
      </form>
      <Unreadable state={state} />
      {mine && (
        <p className={mine.allowed ? '' : 'muted'}>
          {mine.allowed ? <Badge tone="ok">allowed</Badge> : <Badge tone="bad">denied</Badge>} {me?.username ?? 'You'} {mine.allowed ? 'may' : 'may not'}{' '}
          <span className="mono">
            {v} {resourceName(picked.kind, picked.sub)}
          </span>
          {name && ` "${name}"`} {namespaced ? (namespace ? `in ${namespace}` : 'in every namespace') : ''} <span className="muted">(the server's own answer, SelfSubjectAccessReview)</span>
        </p>
      )}
      <section className="panel">
        <h2>
          Who may {v} {resourceName(picked.kind, picked.sub)}
          {name && ` "${name}"`}
          <Badge>{answer.subjects.length + (mastersListed ? 0 : 1)}</Badge>
        </h2>
        <div className="body">
          <table className="simple access whocan">
            <caption className="visually-hidden">Subjects allowed, and the binding that allows each</caption>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Through</th>
                <th scope="col">Where</th>
              </tr>
            </thead>
            <tbody>
              {!mastersListed && (
                <tr>
                  <td>
                    <SubjectLink subject={{ kind: 'Group', name: SYSTEM_MASTERS }} />
                  </td>
                  <td colSpan={2} className="muted">
                    always: members of system:masters may do everything, with or without a binding
                  </td>
                </tr>
              )}
              {answer.subjects.map(({ subject, grants }) => (
                <tr key={`${subject.kind}/${subject.namespace}/${subject.name}`}>
                  <td>
                    <SubjectLink subject={subject} />
                  </td>
                  <td>
                    {grants.map((g, i) => (
                      <div key={i}>
                        <Through g={g} />
                      </div>
                    ))}
                  </td>
                  <td className="nowrap">
                    {grants.map((g, i) => (
                      <div key={i}>{where(g)}</div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {answer.limited.length > 0 && (
            <>
              <h3>Only on some {picked.kind.plural}</h3>
              <ul className="plain">
                {answer.limited.map((g, i) => (
                  <li key={i}>
                    <SubjectLink subject={g.subject} /> on {listOrNames(g.rule.resourceNames)} only, through <Through g={g} /> ({where(g)})
                  </li>
                ))}
              </ul>
            </>
          )}
          {answer.unknownRoles.length > 0 && <p className="muted">Bindings refer to roles that do not exist or cannot be read: {answer.unknownRoles.join(', ')}; they grant nothing.</p>}
          <p className="muted" style={{ marginBottom: 0 }}>
            Computed from the roles and bindings, with ClusterRole aggregation. Nodes (<code>system:node:…</code>) are also judged by the Node authorizer, and
            impersonation can act as any of these subjects.
          </p>
        </div>
      </section>
    </>
  );
}

const listOrNames = (names: string[] | undefined) => (names ?? []).map((n) => `"${n}"`).join(', ');

function MineView() {
  const [ns] = useSearchParam('ns');
  const namespace = ns || 'default';
  const me = useWhoAmI();
  const rules = useRulesReview(namespace);
  return (
    <>
      <section className="panel">
        <h2>Signed in as</h2>
        <div className="body">
          <IdentityLine identity={me.data} />
          <ErrorAlert error={me.error} />
        </div>
      </section>
      <section className="panel">
        <h2>
          What you may do in namespace {namespace} <span className="muted">(and cluster-wide)</span>
        </h2>
        <div className="body">
          <p className="muted" style={{ marginTop: 0 }}>
            The server's answer to a SelfSubjectRulesReview, as <code>kubectl auth can-i --list -n {namespace}</code> prints it. Pick another namespace at the top.
          </p>
          <ErrorAlert error={rules.error} />
          {rules.data?.incomplete && <div className="alert warn">The server says this list is incomplete{rules.data.evaluationError ? `: ${rules.data.evaluationError}` : ''}.</div>}
          {rules.data && (
            <RulesTable
              caption="Your rules"
              rules={[
                ...rules.data.resourceRules.map((rule) => ({ rule })),
                ...rules.data.nonResourceRules.map((r) => ({ rule: { verbs: r.verbs, nonResourceURLs: r.nonResourceURLs } })),
              ]}
            />
          )}
        </div>
      </section>
    </>
  );
}

const SUBJECT_KINDS = ['User', 'Group', 'ServiceAccount'] as const;

function SubjectView() {
  const [kindParam, setKind] = useSearchParam('kind');
  const [name, setName] = useSearchParam('name');
  const [groups, setGroups] = useSearchParam('groups');
  const [sns, setSns] = useSearchParam('sns');
  const [ns] = useSearchParam('ns');
  const kind = SUBJECT_KINDS.find((k) => k === kindParam) ?? 'User';
  const state = usePolicy(ns || undefined);
  const id = identityOf({ kind, name, namespace: sns || 'default', groups: groups.split(',').map((g) => g.trim()).filter(Boolean) });
  const result = useMemo(() => (name ? rulesOf(state.policy, id, ns || undefined) : undefined), [state.policy, kind, name, groups, sns, ns]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <>
      <form className="toolbar" aria-label="Subject" onSubmit={(e) => e.preventDefault()}>
        <label className="field">
          <span>Kind</span>
          <select className="input" value={kind} onChange={(e) => setKind(e.target.value)}>
            {SUBJECT_KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Name</span>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder={kind === 'ServiceAccount' ? 'e.g. default' : kind === 'Group' ? 'e.g. system:authenticated' : 'e.g. alice'} />
        </label>
        {kind === 'ServiceAccount' && (
          <label className="field">
            <span>Its namespace</span>
            <input className="input" value={sns} onChange={(e) => setSns(e.target.value)} placeholder="default" />
          </label>
        )}
        {kind === 'User' && (
          <label className="field">
            <span>Groups</span>
            <input className="input" value={groups} onChange={(e) => setGroups(e.target.value)} placeholder="comma-separated (the token file says)" />
          </label>
        )}
      </form>
      <Unreadable state={state} />
      {!name ? (
        <div className="empty">Name a user, group or service account to see what the bindings grant them.</div>
      ) : (
        result && (
          <section className="panel">
            <h2>
              What {kind} {kind === 'ServiceAccount' ? `${sns || 'default'}/${name}` : name} may do {ns ? `in namespace ${ns} and cluster-wide` : 'anywhere'}
            </h2>
            <div className="body">
              {result.superuser && <div className="alert info">A member of system:masters may do everything, whatever the bindings below say.</div>}
              {id.groups.length > 0 && (
                <p className="muted" style={{ marginTop: 0 }}>
                  Counted as a member of {id.groups.join(', ')}
                  {kind === 'User' && ' (every signed-in user is in system:authenticated)'}.
                </p>
              )}
              {result.grants.length === 0 ? (
                <p>No binding grants {name} anything{ns ? ` in ${ns} or cluster-wide` : ''}.</p>
              ) : (
                <table className="simple access">
                  <caption className="visually-hidden">Rules granted, with their binding</caption>
                  <thead>
                    <tr>
                      <th scope="col">Verbs</th>
                      <th scope="col">Resources</th>
                      <th scope="col">Where</th>
                      <th scope="col">Through</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.grants.map((g, i) => (
                      <tr key={i}>
                        <td className="mono nowrap">{(g.rule.verbs ?? []).join(', ')}</td>
                        <td className="mono">
                          {g.rule.nonResourceURLs?.length
                            ? g.rule.nonResourceURLs.join(', ')
                            : (g.rule.resources ?? []).flatMap((r) => (g.rule.apiGroups ?? []).map((group) => qualifiedResource(r, group))).join(', ')}
                          {g.rule.resourceNames?.length ? <span className="muted"> named {listOrNames(g.rule.resourceNames)}</span> : null}
                        </td>
                        <td className="nowrap">{where(g)}</td>
                        <td>
                          <Through g={g} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {result.unknownRoles.length > 0 && <p className="muted">Bindings refer to roles that do not exist or cannot be read: {result.unknownRoles.join(', ')}.</p>}
            </div>
          </section>
        )
      )}
    </>
  );
}
