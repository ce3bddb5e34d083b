// A reachability matrix as text for reviews and tickets: CSV, Markdown, a
// plain-text table for terminals, and SVG. One table shape serves the CLI
// (pod by pod) and the app (pod groups, with counts).

export type CellState = 'allowed' | 'denied' | 'partial';

export interface MatrixTable {
  /** "TCP 80" */
  title: string;
  /** Sources (rows) and destinations (columns); the same list for a square matrix. */
  rows: string[];
  cols: string[];
  cells: { state: CellState; text: string }[][];
}

const csvField = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export function tableToCSV(t: MatrixTable): string {
  const lines = [[`source \\ destination (${t.title})`, ...t.cols].map(csvField).join(',')];
  t.rows.forEach((r, i) => lines.push([r, ...t.cells[i].map((c) => c.text)].map(csvField).join(',')));
  return `${lines.join('\r\n')}\r\n`;
}

const mdField = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function tableToMarkdown(t: MatrixTable): string {
  const head = `| ${mdField(`${t.title}: source \\ destination`)} | ${t.cols.map(mdField).join(' | ')} |`;
  const rule = `|${' --- |'.repeat(t.cols.length + 1)}`;
  const body = t.rows.map((r, i) => `| ${mdField(r)} | ${t.cells[i].map((c) => mdField(c.text)).join(' | ')} |`);
  return [head, rule, ...body].join('\n') + '\n';
}

/** Columns numbered (names would not fit across), rows named with the same numbers. */
export function tableToText(t: MatrixTable): string {
  const n = t.cols.length;
  const numW = String(Math.max(n, t.rows.length)).length;
  const cellW = Math.max(numW, ...t.cells.flat().map((c) => c.text.length));
  const names = t.rows.map((r, i) => `${String(i + 1).padStart(numW)} ${r}`);
  const nameW = Math.max(t.title.length, ...names.map((s) => s.length));
  const lines = [`${t.title.padEnd(nameW)}  ${t.cols.map((_, j) => String(j + 1).padStart(cellW)).join(' ')}`];
  t.rows.forEach((_, i) => lines.push(`${names[i].padEnd(nameW)}  ${t.cells[i].map((c) => c.text.padStart(cellW)).join(' ')}`));
  if (t.cols !== t.rows) t.cols.forEach((c, j) => lines.push(`  column ${j + 1}: ${c}`));
  return lines.join('\n') + '\n';
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const FILL: Record<CellState, string> = { allowed: '#2e7d32', denied: '#c62828', partial: '#ef8f00' };

/** A standalone SVG: row names left, column names rotated on top, one coloured square per cell with its text. */
export function tableToSVG(t: MatrixTable, cell = 22): string {
  const charW = 6.6;
  const left = Math.ceil(Math.max(40, ...t.rows.map((r) => r.length * charW))) + 12;
  const top = Math.ceil(Math.max(40, ...t.cols.map((c) => c.length * charW)) * 0.72) + 34;
  const w = left + t.cols.length * cell + 10;
  const h = top + t.rows.length * cell + 10;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="11">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="8" y="16" font-size="13" font-weight="bold" fill="#111">${xml(t.title)} · rows: sources, columns: destinations</text>`,
  ];
  t.cols.forEach((c, j) => {
    const x = left + j * cell + cell / 2 + 4;
    out.push(`<text transform="translate(${x},${top - 6}) rotate(-45)" fill="#111">${xml(c)}</text>`);
  });
  t.rows.forEach((r, i) => {
    const y = top + i * cell;
    out.push(`<text x="${left - 6}" y="${y + cell / 2 + 4}" text-anchor="end" fill="#111">${xml(r)}</text>`);
    t.cells[i].forEach((c, j) => {
      const x = left + j * cell;
      out.push(`<rect x="${x}" y="${y}" width="${cell - 2}" height="${cell - 2}" fill="${FILL[c.state]}"><title>${xml(`${r} → ${t.cols[j]}: ${c.state} ${c.text}`)}</title></rect>`);
      if (c.text.length <= 3) out.push(`<text x="${x + (cell - 2) / 2}" y="${y + cell / 2 + 3}" text-anchor="middle" fill="#fff" font-size="10">${xml(c.text)}</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
