// Who may talk to whom, drawn: namespaces as boxes laid out in a grid, pod
// groups (pods of a namespace with the same labels) as rows inside them,
// external networks named by ipBlocks in a box of their own, and an arrow
// for each allowed group pair labelled with the ports it is allowed on.
// Traffic between pods no policy isolates is hidden unless asked for: it is
// everything-to-everything and would bury the rest.
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ClusterSummary, GraphEdge, GraphLevel, GraphView as GraphAnswer, PolicyInfo } from './compute.ts';
import { groupTitle } from './MatrixView.tsx';

const BW = 230; // box width
const HEAD = 30;
const NH = 24; // node height
const NG = 6; // gap between nodes
const PAD = 10;
const GX = 120;
const GY = 56;
const MAX_EDGES = 800;

interface NodeBox {
  id: number;
  x: number;
  y: number;
  w: number;
  label: string;
  title: string;
  external: boolean;
}

interface Layout {
  boxes: { label: string; x: number; y: number; h: number; external: boolean }[];
  nodes: NodeBox[];
  width: number;
  height: number;
}

interface Column {
  label: string;
  external: boolean;
  members: { id: number; label: string; title: string }[];
}

/** Boxes of the group level: one per namespace, its pod groups inside. */
function groupColumns(summary: ClusterSummary): Column[] {
  const columns: Column[] = [];
  summary.groups.forEach((g, i) => {
    let box = columns.at(-1);
    if (!box || box.label !== g.namespace) columns.push((box = { label: g.namespace, members: [], external: false }));
    box.members.push({ id: i, label: g.name, title: groupTitle(g) });
  });
  return columns;
}

/** Boxes of the namespace level: one per namespace holding a single node for all its pods. */
function namespaceColumns(summary: ClusterSummary): { columns: Column[]; nodeOf: Int32Array } {
  const columns: Column[] = [];
  const nodeOf = new Int32Array(summary.groups.length + summary.cidrs.length);
  const counts: { pods: number; groups: number }[] = [];
  summary.groups.forEach((g, i) => {
    if (columns.at(-1)?.label !== g.namespace) {
      columns.push({ label: g.namespace, members: [{ id: columns.length, label: '', title: `namespace ${g.namespace}` }], external: false });
      counts.push({ pods: 0, groups: 0 });
    }
    const k = columns.length - 1;
    nodeOf[i] = k;
    counts[k].pods += g.podCount;
    counts[k].groups++;
  });
  columns.forEach((c, k) => (c.members[0].label = `${counts[k].pods} pods in ${counts[k].groups} groups`));
  summary.cidrs.forEach((_, k) => (nodeOf[summary.groups.length + k] = columns.length + k));
  return { columns, nodeOf };
}

function layout(summary: ClusterSummary, columns: Column[], firstExternal: number, width: number): Layout {
  columns = [...columns];
  if (summary.cidrs.length) {
    columns.push({
      label: 'External networks',
      external: true,
      members: summary.cidrs.map((c, k) => ({
        id: firstExternal + k,
        label: c.except.length ? `${c.cidr} (−${c.except.length})` : c.cidr,
        title: `${c.cidr}${c.except.length ? ` except ${c.except.join(', ')}` : ''}`,
      })),
    });
  }
  // As many namespaces side by side as fit, but not a single long row.
  const fit = Math.max(1, Math.floor((width - 20 + GX) / (BW + GX)));
  const perRow = Math.max(1, Math.min(fit, Math.max(2, Math.ceil(Math.sqrt(columns.length * 1.5)))));
  const boxes: Layout['boxes'] = [];
  const nodes: NodeBox[] = [];
  let y = 10;
  let maxX = 0;
  for (let r = 0; r < columns.length; r += perRow) {
    const row = columns.slice(r, r + perRow);
    let rowH = 0;
    row.forEach((b, c) => {
      const x = 10 + c * (BW + GX);
      const h = HEAD + b.members.length * (NH + NG) + PAD - NG + 4;
      b.members.forEach((m, k) => {
        nodes[m.id] = { ...m, x: x + PAD, y: y + HEAD + k * (NH + NG), w: BW - 2 * PAD, external: b.external };
      });
      boxes.push({ label: b.label, x, y, h, external: b.external });
      rowH = Math.max(rowH, h);
      maxX = Math.max(maxX, x + BW + GX);
    });
    y += rowH + GY;
  }
  return { boxes, nodes, width: maxX, height: y };
}

function edgePath(a: NodeBox, b: NodeBox): { d: string; lx: number; ly: number } {
  const ay = a.y + NH / 2;
  const by = b.y + NH / 2;
  if (a === b) {
    const x = a.x + a.w;
    return { d: `M${x} ${ay - 5} C${x + 34} ${ay - 22}, ${x + 34} ${ay + 22}, ${x} ${ay + 5}`, lx: x + 30, ly: ay };
  }
  let p0: [number, number];
  let p3: [number, number];
  let c1: [number, number];
  let c2: [number, number];
  if (Math.abs(a.x - b.x) < 1) {
    const bulge = 30 + Math.min(80, Math.abs(by - ay) * 0.25);
    p0 = [a.x + a.w, ay];
    p3 = [b.x + b.w, by];
    c1 = [p0[0] + bulge, ay];
    c2 = [p3[0] + bulge, by];
  } else if (b.x > a.x) {
    p0 = [a.x + a.w, ay];
    p3 = [b.x, by];
    const dx = (p3[0] - p0[0]) / 2;
    c1 = [p0[0] + dx, ay];
    c2 = [p3[0] - dx, by];
  } else {
    p0 = [a.x, ay];
    p3 = [b.x + b.w, by];
    const dx = (p0[0] - p3[0]) / 2;
    c1 = [p0[0] - dx, ay];
    c2 = [p3[0] + dx, by];
  }
  const lx = (p0[0] + 3 * c1[0] + 3 * c2[0] + p3[0]) / 8;
  const ly = (p0[1] + 3 * c1[1] + 3 * c2[1] + p3[1]) / 8;
  return { d: `M${p0[0]} ${p0[1]} C${c1[0]} ${c1[1]}, ${c2[0]} ${c2[1]}, ${p3[0]} ${p3[1]}`, lx, ly };
}

/** "TCP 5432, 6379 · UDP 53": ports grouped by protocol, long lists cut. */
function portsLabel(e: GraphEdge): string {
  const by = new Map<string, string[]>();
  for (const p of e.ports) {
    const [proto, num] = p.split(' ');
    if (num === undefined) return p;
    by.set(proto, [...(by.get(proto) ?? []), num]);
  }
  const text = [...by].map(([proto, nums]) => `${proto} ${nums.length > 3 ? `${nums.slice(0, 2).join(', ')} +${nums.length - 2}` : nums.join(', ')}`).join(' · ');
  return text;
}

/** A point of the edge's cubic at t, read back from its path text. */
function pointAt(d: string, t: number): [number, number] {
  const n = d.match(/-?[\d.]+/g)!.map(Number);
  const [x0, y0, x1, y1, x2, y2, x3, y3] = n;
  const u = 1 - t;
  return [u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3, u * u * u * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3];
}

const LABEL_H = 14;
/** Width of an edge label at the graph's 11px font (its characters average about 6.2px). */
const labelWidth = (text: string) => text.length * 6.2 + 8;

/**
 * Label positions: each label goes to the first spot along its edge (middle
 * first), or just above or below it, where it covers no earlier label and no
 * pod group; when none is free, the nearest free spot straight above or below
 * the middle. Labels never sit on one another.
 */
export function placeLabels(items: { d: string; text: string; at?: [number, number] }[], obstacles: { x: number; y: number; w: number; h: number }[] = []): [number, number][] {
  const placed: { x: number; y: number; w: number }[] = [];
  const free = (x: number, y: number, w: number) =>
    !placed.some((p) => Math.abs(p.x - x) < (p.w + w) / 2 + 2 && Math.abs(p.y - y) < LABEL_H + 1) &&
    !obstacles.some((r) => x + w / 2 > r.x && x - w / 2 < r.x + r.w && y + LABEL_H / 2 > r.y && y - LABEL_H / 2 < r.y + r.h);
  return items.map(({ d, text, at }) => {
    const w = labelWidth(text);
    const spots = at ? [at] : [0.5, 0.38, 0.62, 0.28, 0.72, 0.2, 0.8].map((t) => pointAt(d, t));
    let best: [number, number] | undefined;
    search: for (const dy of [0, -LABEL_H, LABEL_H]) {
      for (const [x, y] of spots) {
        if (free(x, y + dy, w)) {
          best = [x, y + dy];
          break search;
        }
      }
    }
    if (!best) {
      const [x, y] = spots[0];
      for (let k = 2; !best; k++) {
        if (free(x, y - k * LABEL_H, w)) best = [x, y - k * LABEL_H];
        else if (free(x, y + k * LABEL_H, w)) best = [x, y + k * LABEL_H];
        else if (k > 60) best = [x, y + k * LABEL_H];
      }
    }
    placed.push({ x: best[0], y: best[1], w });
    return best;
  });
}

export function GraphView({ summary: full, graph, policy, level: wanted, onLevel }: { summary: ClusterSummary; graph: GraphAnswer; policy?: PolicyInfo; level: GraphLevel; onLevel(level: GraphLevel): void }) {
  // Only the external networks the answer covers.
  const summary = useMemo(() => (full.cidrs.length > graph.cidrCount ? { ...full, cidrs: full.cidrs.slice(0, graph.cidrCount) } : full), [full, graph.cidrCount]);
  const allChecked = graph.ports.length;
  const [showOpen, setShowOpen] = useState(false);
  const [hover, setHover] = useState<number>();
  const wrap = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(900);
  useLayoutEffect(() => {
    const el = wrap.current!;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  const G = summary.groups.length;
  // Drawn at the level the answer was computed for (the other one may be on its way).
  const level = graph.level;

  // Nodes and edges of that level; ids are group (or namespace) indexes, then external networks.
  const view = useMemo(() => {
    if (level === 'groups') {
      const identity = Int32Array.from({ length: G + summary.cidrs.length }, (_, i) => i);
      return { lay: layout(summary, groupColumns(summary), G, width), edges: graph.edges, nodeOf: identity };
    }
    const { columns, nodeOf } = namespaceColumns(summary);
    return { lay: layout(summary, columns, columns.length, width), edges: graph.edges, nodeOf };
  }, [level, summary, graph.edges, width, G]);
  const lay = view.lay;

  const marks = useMemo(() => {
    const sel = new Set<number>();
    const adm = new Set<number>();
    const at = view.nodeOf;
    if (policy) {
      policy.selects.forEach((g) => sel.add(at[g]));
      policy.admitsFrom.forEach((g) => adm.add(at[g]));
      policy.admitsTo.forEach((g) => adm.add(at[g]));
      const cidrs = new Set([...policy.cidrsFrom, ...policy.cidrsTo]);
      summary.cidrs.forEach((c, k) => cidrs.has(c.cidr) && adm.add(at[G + k]));
      if (policy.admitsFromAll || policy.admitsToAll) for (let g = 0; g < G; g++) adm.add(at[g]);
    }
    return { sel, adm };
  }, [policy, summary, G, view]);

  const openCount = view.edges.filter((e) => e.open).length;
  const edges = useMemo(() => {
    let list = view.edges.filter((e) => showOpen || !e.open);
    if (policy) {
      // The policy's own traffic first: into what it selects (ingress), out of it (egress).
      const touches = (e: GraphEdge) => (marks.sel.has(e.to) && policy.types.includes('Ingress')) || (marks.sel.has(e.from) && policy.types.includes('Egress'));
      list = [...list.filter(touches), ...list.filter((e) => !touches(e))];
    }
    return list.slice(0, MAX_EDGES);
  }, [view.edges, showOpen, policy, marks]);
  const drawn = useMemo(() => {
    const items = edges.flatMap((e) => {
      const a = lay.nodes[e.from];
      const b = lay.nodes[e.to];
      if (!a || !b) return [];
      const p = edgePath(a, b);
      return [{ e, a, b, d: p.d, self: a === b, lx: p.lx, ly: p.ly, text: allChecked > 1 && e.ports.length === allChecked ? 'all ports' : portsLabel(e) }];
    });
    const spots = placeLabels(
      items.map((i) => ({ d: i.d, text: i.text, at: i.self ? ([i.lx + labelWidth(i.text) / 2, i.ly] as [number, number]) : undefined })),
      lay.nodes.filter(Boolean).map((n) => ({ x: n.x, y: n.y, w: n.w, h: NH })),
    );
    return items.map((i, k) => ({ ...i, lx: spots[k][0], ly: spots[k][1] }));
  }, [edges, lay, allChecked]);
  const hidden = view.edges.filter((e) => showOpen || !e.open).length - edges.length;

  const edgeClass = (e: GraphEdge) => {
    const parts = ['rx-edge'];
    if (e.open) parts.push('open');
    if (e.partial) parts.push('partial');
    if (policy) {
      const mine = (marks.sel.has(e.to) && policy.types.includes('Ingress')) || (marks.sel.has(e.from) && policy.types.includes('Egress'));
      parts.push(mine ? 'hl' : 'dim');
    }
    if (hover !== undefined) parts.push(e.from === hover || e.to === hover ? 'hl' : 'dim');
    return parts.join(' ');
  };

  if (!G && !summary.cidrs.length) return <div className="empty">No pods yet.</div>;
  return (
    <div className="rx-graph-wrap">
      <div className="rx-graph-bar">
        <label className="check">
          <span className="muted">Nodes</span>
          <select className="input" aria-label="Graph detail" value={wanted} onChange={(e) => onLevel(e.target.value as GraphLevel)}>
            <option value="groups">pod groups</option>
            <option value="namespaces">namespaces</option>
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={showOpen} onChange={(e) => setShowOpen(e.target.checked)} /> Show unrestricted traffic ({openCount} {level === 'groups' ? 'group' : 'namespace'} pairs where no policy isolates either side)
        </label>
        <span className="muted">
          Ports checked: {graph.ports.map((p) => `${p.protocol} ${p.port}`).join(', ')}
          {hidden > 0 && ` · ${hidden} more edges not drawn`}
          {full.cidrs.length > graph.cidrCount && ` · ${full.cidrs.length - graph.cidrCount} more external networks not drawn`}
        </span>
      </div>
      <div className="rx-graph-scroll" ref={wrap}>
        <svg className="rx-graph" width={lay.width} height={lay.height} viewBox={`0 0 ${lay.width} ${lay.height}`} role="img" aria-label={`Allowed traffic between ${G} pod groups`}>
          <defs>
            <marker id="rx-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0 0L10 5L0 10z" className="rx-arrow" />
            </marker>
            <marker id="rx-arrow-hl" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0 0L10 5L0 10z" className="rx-arrow hl" />
            </marker>
          </defs>
          {lay.boxes.map((b) => (
            <g key={b.label} className={`rx-box${b.external ? ' external' : ''}`}>
              <rect x={b.x} y={b.y} width={BW} height={b.h} rx={8} />
              <text x={b.x + 12} y={b.y + 19}>
                {b.external ? b.label : `namespace ${b.label}`}
              </text>
            </g>
          ))}
          {drawn.map(({ e, a, b, d, lx, ly, text }) => {
            const cls = edgeClass(e);
            return (
              <g key={`${e.from}-${e.to}`} className={cls}>
                <path d={d} markerEnd={cls.includes(' hl') ? 'url(#rx-arrow-hl)' : 'url(#rx-arrow)'}>
                  <title>
                    {a.label} → {b.label}: {e.ports.join(', ')}
                    {e.partial ? ' (some pod pairs)' : ''}
                  </title>
                </path>
                <text x={lx} y={ly + 4} className="rx-edge-label">
                  {text}
                </text>
              </g>
            );
          })}
          {lay.nodes.map((n) => {
            if (!n) return null;
            const cls = `rx-node${n.external ? ' external' : ''}${marks.sel.has(n.id) ? ' sel' : ''}${marks.adm.has(n.id) ? ' adm' : ''}${policy && !marks.sel.has(n.id) && !marks.adm.has(n.id) ? ' dim' : ''}`;
            const g = level === 'groups' ? summary.groups[n.id] : undefined;
            return (
              <g key={n.id} className={cls} onMouseEnter={() => setHover(n.id)} onMouseLeave={() => setHover(undefined)} data-node={n.label}>
                <title>{n.title}</title>
                <rect x={n.x} y={n.y} width={n.w} height={NH} rx={5} />
                <text x={n.x + 8} y={n.y + 16}>
                  {n.label.length > 30 ? `${n.label.slice(0, 29)}…` : n.label}
                </text>
                {g && (g.ingressIsolated || g.egressIsolated) && (
                  <text x={n.x + n.w - 6} y={n.y + 16} className="rx-iso" textAnchor="end">
                    {g.ingressIsolated ? '⇥' : ''}
                    {g.egressIsolated ? '↦' : ''}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <div className="rx-legend">
        <span>
          <svg width="34" height="10" aria-hidden="true">
            <path d="M2 5H30" className="rx-legend-line" />
          </svg>{' '}
          allowed (label: ports)
        </span>
        <span>
          <svg width="34" height="10" aria-hidden="true">
            <path d="M2 5H30" className="rx-legend-line partial" />
          </svg>{' '}
          only some pod pairs
        </span>
        <span>⇥ ingress isolated · ↦ egress isolated</span>
        <span>
          <span className="rx-swatch sel" aria-hidden="true" /> selected by the policy
        </span>
        <span>
          <span className="rx-swatch adm" aria-hidden="true" /> admitted by its rules
        </span>
      </div>
    </div>
  );
}
