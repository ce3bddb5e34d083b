// The shell: navigation, namespace switcher, connection switcher, who the
// user is, connection state, theme. A connection that answers 401 gets the
// sign-in form instead of the page.
import { useEffect, useState, type ReactNode } from 'react';
import type { KubeObject } from '../../kinds/kind.ts';
import { namespaceKind } from '../../kinds/namespace.ts';
import { servedKey, useChangeConnection, useDiscovery, useList, useWatchHealth } from '../api/hooks.ts';
import { selectConnection, useConnection, useSavedConnections } from '../api/connection.ts';
import { useAccessRefreshOnRefusal, useCanI, useCredentialsNeeded, useWhoAmI } from '../api/access.ts';
import { SignIn } from '../features/settings/SignIn.tsx';
import { Link, navigate, useLocation, useSearchParam, withSearch } from '../routes/router.tsx';
import type { KindView } from '../features/resources/types.ts';
import { icons, Logo } from './icons.tsx';

type Theme = 'light' | 'dark';
function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem('kw.theme') as Theme) ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('kw.theme', theme);
  }, [theme]);
  return [theme, () => setTheme(theme === 'dark' ? 'light' : 'dark')];
}

const HEALTH_TEXT = { live: 'Live', connecting: 'Connecting…', reconnecting: 'Reconnecting…', offline: 'Offline' };

function ConnectionIndicator() {
  const health = useWatchHealth();
  const conn = useConnection();
  const unauthorized = useCredentialsNeeded();
  return (
    <Link to="/settings" className={`conn ${unauthorized ? 'offline' : health}`} title={`API: ${conn.baseUrl}`} aria-live="polite" data-testid="connection">
      <span className="dot" /> {unauthorized ? 'Unauthorized' : HEALTH_TEXT[health]}
    </Link>
  );
}

function ConnectionSwitcher() {
  const conn = useConnection();
  const saved = useSavedConnections();
  const change = useChangeConnection();
  if (saved.length < 2) return null;
  return (
    <select className="input" value={conn.id} onChange={(e) => change(() => selectConnection(e.target.value))} aria-label="Connection" title={`API: ${conn.baseUrl}`}>
      {saved.map((c) => (
        <option key={c.id} value={c.id}>
          {c.name}
        </option>
      ))}
    </select>
  );
}

/** Who the app acts as (SelfSubjectReview), linking to what they may do. */
function WhoAmI() {
  const me = useWhoAmI();
  const needed = useCredentialsNeeded();
  if (needed) return null;
  const user = me.data?.username;
  if (!user) return null;
  return (
    <Link to="/access?tab=mine" className="whoami" title={`Signed in as ${user}${me.data!.groups.length ? ` (groups: ${me.data!.groups.join(', ')})` : ''}. What may I do?`} data-testid="whoami">
      {icons.user}
      <span className="whoami-name">{user}</span>
    </Link>
  );
}

function NamespaceSwitcher() {
  const [ns, setNs] = useSearchParam('ns');
  const { items } = useList(namespaceKind);
  const names = items.map((n: KubeObject) => n.metadata.name!).sort();
  return (
    <label className="row" style={{ gap: 6 }}>
      <span className="muted">Namespace</span>
      <select className="input" value={ns} onChange={(e) => setNs(e.target.value)} aria-label="Namespace">
        <option value="">All namespaces</option>
        {names.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
        {ns && !names.includes(ns) && <option value={ns}>{ns}</option>}
      </select>
    </label>
  );
}

function NavLink({
  to,
  icon,
  children,
  active,
  unavailable,
  refused,
}: {
  to: string;
  icon: ReactNode;
  children: ReactNode;
  active: boolean;
  unavailable?: boolean;
  /** Why the user may not list this kind, when they may not. */
  refused?: string;
}) {
  const title = unavailable ? 'This server does not serve this kind' : refused;
  return (
    <Link to={to} className={`nav-link${active ? ' active' : ''}${unavailable ? ' unavailable' : ''}`} aria-current={active ? 'page' : undefined} title={title}>
      {icon}
      {children}
      {unavailable ? <span className="count">n/a</span> : refused ? <span className="count">no access</span> : null}
    </Link>
  );
}

/** A kind in the sidebar, marked when the server does not serve it or the user may not list it. */
function KindLink({ view, active, served }: { view: KindView; active: boolean; served: boolean }) {
  const [ns] = useSearchParam('ns');
  const canList = useCanI('list', view.kind, ns || undefined);
  return (
    <NavLink to={withSearch(`/${view.kind.plural}`)} icon={view.icon} active={active} unavailable={!served} refused={canList?.allowed === false ? canList.message : undefined}>
      {view.label}
    </NavLink>
  );
}

// `g` then a letter jumps to a view; `/` focuses the filter.
const JUMPS: Record<string, string> = { o: '/', n: '/nodes', p: '/networkpolicies', d: '/daemonsets', v: '/volumeattachments', s: '/namespaces', c: '/pods', r: '/reachability', e: '/events', a: '/access', ',': '/settings' };
function useKeyboard() {
  useEffect(() => {
    let pendingG = 0;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t.closest('input, textarea, select, [contenteditable]') || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === '/') {
        const search = document.querySelector<HTMLInputElement>('[data-search]');
        if (search) {
          e.preventDefault();
          search.focus();
        }
      } else if (e.key === 'g') pendingG = Date.now();
      else if (Date.now() - pendingG < 1000 && JUMPS[e.key]) {
        pendingG = 0;
        navigate(withSearch(JUMPS[e.key]));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function Layout({
  primary,
  supporting,
  access,
  children,
  fill,
}: {
  primary: KindView[];
  supporting: KindView[];
  /** Roles and bindings, beside the who-can views. */
  access: KindView[];
  children: ReactNode;
  fill: boolean;
}) {
  const [theme, toggleTheme] = useTheme();
  const { pathname } = useLocation();
  const discovery = useDiscovery();
  const needsCredentials = useCredentialsNeeded();
  useKeyboard();
  useAccessRefreshOnRefusal();
  const served = (v: KindView) => !discovery.data || discovery.data.resources.has(servedKey(v.kind));
  const link = (v: KindView) => (
    <KindLink key={v.kind.plural} view={v} served={served(v)} active={pathname === `/${v.kind.plural}` || pathname.startsWith(`/${v.kind.plural}/`)} />
  );
  return (
    <div className="app">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <Logo /> Kube Workbench
        </div>
        <NavLink to={withSearch('/')} icon={icons.overview} active={pathname === '/'}>
          Overview
        </NavLink>
        <div className="nav-section">Resources</div>
        {primary.map(link)}
        <NavLink to={withSearch('/reachability')} icon={icons.reachability} active={pathname === '/reachability'}>
          Reachability
        </NavLink>
        <NavLink to={withSearch('/events')} icon={icons.events} active={pathname === '/events'}>
          Events
        </NavLink>
        <div className="nav-section">Supporting</div>
        {supporting.map(link)}
        <div className="nav-section">Access control</div>
        <NavLink to={withSearch('/access')} icon={icons.access} active={pathname === '/access'}>
          Who can…
        </NavLink>
        {access.map(link)}
        <div className="nav-section">App</div>
        <NavLink to="/settings" icon={icons.settings} active={pathname === '/settings'}>
          Settings
        </NavLink>
        <div className="sidebar-foot">
          <span className="kbd">/</span> filter · <span className="kbd">g</span> <span className="kbd">n</span> nodes
        </div>
      </nav>
      <div className="main">
        <header className="topbar">
          <NamespaceSwitcher />
          <span className="spacer" />
          <ConnectionSwitcher />
          <WhoAmI />
          <ConnectionIndicator />
          <button className="icon-btn" onClick={toggleTheme} aria-label={theme === 'dark' ? 'Light theme' : 'Dark theme'} title="Toggle theme">
            {theme === 'dark' ? icons.sun : icons.moon}
          </button>
        </header>
        <main className={`content${fill && !needsCredentials ? ' fill' : ''}`}>{needsCredentials && pathname !== '/settings' ? <SignIn /> : children}</main>
      </div>
    </div>
  );
}
