// A line chart as an SVG document, for figures in docs/: pure, no dependencies.
export interface Series {
  name: string;
  points: { x: number; y: number }[];
}

export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  width?: number;
  height?: number;
}

const COLOURS = ['#d1495b', '#2e86ab', '#66a182', '#edae49', '#8d6a9f'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A "nice" step (1, 2 or 5 times a power of ten) that cuts `span` into about `parts`. */
function niceStep(span: number, parts: number): number {
  const raw = span / parts;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw)!;
}

export function lineChart(chart: Chart): string {
  const width = chart.width ?? 720;
  const height = chart.height ?? 360;
  const margin = { left: 64, right: 36, top: 40, bottom: 48 };
  const all = chart.series.flatMap((s) => s.points);
  const xMax = Math.max(...all.map((p) => p.x));
  const yStep = niceStep(Math.max(...all.map((p) => p.y)) || 1, 5);
  const yMax = Math.ceil(Math.max(...all.map((p) => p.y)) / yStep) * yStep || yStep;
  const xStep = niceStep(xMax || 1, 5);
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const sx = (x: number) => margin.left + (x / (xMax || 1)) * plotW;
  const sy = (y: number) => margin.top + plotH - (y / yMax) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escape(chart.title)}</text>`,
  ];
  for (let y = 0; y <= yMax + 1e-9; y += yStep) {
    out.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${sy(y)}" y2="${sy(y)}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${margin.left - 6}" y="${sy(y) + 4}" text-anchor="end">${Number(y.toFixed(6))}</text>`);
  }
  for (let x = 0; x <= xMax + 1e-9; x += xStep) {
    out.push(`<text x="${sx(x)}" y="${margin.top + plotH + 16}" text-anchor="middle">${Number(x.toFixed(6))}</text>`);
  }
  out.push(`<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="#555"/>`);
  out.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#555"/>`);
  out.push(`<text x="${margin.left + plotW / 2}" y="${height - 10}" text-anchor="middle">${escape(chart.xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`);
  chart.series.forEach((series, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const points = series.points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points}"/>`);
    const legendY = margin.top + 8 + i * 18;
    out.push(`<line x1="${margin.left + 12}" x2="${margin.left + 36}" y1="${legendY}" y2="${legendY}" stroke="${colour}" stroke-width="2"/>`);
    out.push(`<text x="${margin.left + 42}" y="${legendY + 4}">${escape(series.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
