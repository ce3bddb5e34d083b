// The shell: navigation, namespace switcher, connection state, theme.
import { useEffect, useState, type ReactNode } from 'react';
import type { KubeObject } from '../../kinds/kind.ts';
import { namespaceKind } from '../../kinds/namespace.ts';
import { servedKey, useDiscovery, useList, useWatchHealth } from '../api/hooks.ts';
import { useConnection } from '../api/connection.ts';
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
  return (
    <Link to="/settings" className={`conn ${health}`} title={`API: ${conn.baseUrl}`} aria-live="polite" data-testid="connection">
      <span className="dot" /> {HEALTH_TEXT[health]}
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

function NavLink({ to, icon, children, active, unavailable }: { to: string; icon: ReactNode; children: ReactNode; active: boolean; unavailable?: boolean }) {
  return (
    <Link to={to} className={`nav-link${active ? ' active' : ''}${unavailable ? ' unavailable' : ''}`} aria-current={active ? 'page' : undefined} title={unavailable ? 'This server does not serve this kind' : undefined}>
      {icon}
      {children}
      {unavailable && <span className="count">n/a</span>}
    </Link>
  );
}

// `g` then a letter jumps to a view; `/` focuses the filter.
const JUMPS: Record<string, string> = { o: '/', n: '/nodes', p: '/networkpolicies', d: '/daemonsets', v: '/volumeattachments', s: '/namespaces', c: '/pods', r: '/reachability', ',': '/settings' };
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

export function Layout({ primary, supporting, children, fill }: { primary: KindView[]; supporting: KindView[]; children: ReactNode; fill: boolean }) {
  const [theme, toggleTheme] = useTheme();
  const { pathname } = useLocation();
  const discovery = useDiscovery();
  useKeyboard();
  const served = (v: KindView) => !discovery.data || discovery.data.resources.has(servedKey(v.kind));
  const link = (v: KindView) => (
    <NavLink key={v.kind.plural} to={withSearch(`/${v.kind.plural}`)} icon={v.icon} active={pathname.startsWith(`/${v.kind.plural}`)} unavailable={!served(v)}>
      {v.label}
    </NavLink>
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
        <div className="nav-section">Supporting</div>
        {supporting.map(link)}
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
          <ConnectionIndicator />
          <button className="icon-btn" onClick={toggleTheme} aria-label={theme === 'dark' ? 'Light theme' : 'Dark theme'} title="Toggle theme">
            {theme === 'dark' ? icons.sun : icons.moon}
          </button>
        </header>
        <main className={`content${fill ? ' fill' : ''}`}>{children}</main>
      </div>
    </div>
  );
}
