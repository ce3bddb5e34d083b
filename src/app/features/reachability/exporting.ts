// Export of the matrix and the graph for reviews and tickets: CSV, Markdown
// and SVG from the same table the CLI prints, PNG by drawing the SVG on a
// canvas; the graph's own SVG with its computed styles written inline so it
// stands alone outside the page.
import { tableToCSV, tableToMarkdown, tableToSVG, type MatrixTable } from '../../../lib/reachability/export.ts';
import type { ClusterSummary, MatrixView as MatrixAnswer } from './compute.ts';
import { cellState, groupId } from './MatrixView.tsx';

export type ExportFormat = 'csv' | 'md' | 'svg' | 'png';

/** The matrix as shown: one row and column per pod group, a cell's text its verdict or its share of allowed pod pairs. */
export function matrixTable(summary: ClusterSummary, m: MatrixAnswer): MatrixTable {
  const names = summary.groups.map(groupId);
  return {
    title: `${m.protocol} ${m.port}`,
    rows: names,
    cols: names,
    cells: summary.groups.map((_, i) =>
      summary.groups.map((__, j) => {
        const c = cellState(summary, m, i, j);
        return { state: c.state, text: c.state === 'allowed' ? '✓' : c.state === 'denied' ? '✕' : `${c.count}/${c.total}` };
      }),
    ),
  };
}

function download(name: string, blob: Blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A PNG of an SVG text, at twice its size for sharp text in tickets. */
async function svgToPNG(svg: string): Promise<Blob> {
  const img = new Image();
  // A data: URL, not a blob: one: the server's Content-Security-Policy allows images from data: only.
  await new Promise<void>((resolve, reject) => {
    img.onload = () => resolve();
    img.onerror = () => reject(new Error('the SVG could not be drawn'));
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  });
  {
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth * 2;
    canvas.height = img.naturalHeight * 2;
    const ctx = canvas.getContext('2d')!;
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('no PNG'))), 'image/png'));
  }
}

export async function exportMatrix(summary: ClusterSummary, m: MatrixAnswer, format: ExportFormat) {
  const t = matrixTable(summary, m);
  const base = `reachability-${m.protocol.toLowerCase()}-${m.port}`;
  if (format === 'csv') download(`${base}.csv`, new Blob([tableToCSV(t)], { type: 'text/csv' }));
  else if (format === 'md') download(`${base}.md`, new Blob([tableToMarkdown(t)], { type: 'text/markdown' }));
  else if (format === 'svg') download(`${base}.svg`, new Blob([tableToSVG(t)], { type: 'image/svg+xml' }));
  else download(`${base}.png`, await svgToPNG(tableToSVG(t)));
}

const STYLE_PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline', 'marker-end', 'marker-start', 'visibility', 'display'];

/** The graph's SVG as a standalone document: computed styles inlined, a white background. */
export function standaloneSVG(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const src = [svg, ...svg.querySelectorAll('*')] as Element[];
  const dst = [copy, ...copy.querySelectorAll('*')] as Element[];
  src.forEach((el, i) => {
    const cs = getComputedStyle(el);
    const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).filter((s) => !s.endsWith(':')).join(';');
    dst[i].setAttribute('style', style);
    dst[i].removeAttribute('class');
  });
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', '#ffffff');
  copy.insertBefore(bg, copy.firstChild);
  return new XMLSerializer().serializeToString(copy);
}

export async function exportGraph(svg: SVGSVGElement, format: 'svg' | 'png') {
  const text = standaloneSVG(svg);
  if (format === 'svg') download('reachability-graph.svg', new Blob([text], { type: 'image/svg+xml' }));
  else download('reachability-graph.png', await svgToPNG(text));
}

/** CSV and Markdown of the graph: one line per edge. */
export function exportGraphEdges(rows: { from: string; to: string; ports: string }[], format: 'csv' | 'md') {
  if (format === 'csv') {
    const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    download('reachability-graph.csv', new Blob([['from,to,ports', ...rows.map((r) => [r.from, r.to, r.ports].map(q).join(','))].join('\r\n') + '\r\n'], { type: 'text/csv' }));
  } else {
    const e = (s: string) => s.replace(/\|/g, '\\|');
    download('reachability-graph.md', new Blob([['| from | to | ports |', '| --- | --- | --- |', ...rows.map((r) => `| ${e(r.from)} | ${e(r.to)} | ${e(r.ports)} |`)].join('\n') + '\n'], { type: 'text/markdown' }));
  }
}
