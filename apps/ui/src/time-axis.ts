/**
 * The time axis of a branch: its steps placed by when they happened (not one step per slot, as
 * the graph and slider do), so quiet periods show as gaps; zoomed around the selected step.
 */

/** A step and when it happened (ms since the epoch). */
export interface AxisPoint {
  version: number;
  at: number;
}

export interface AxisTick extends AxisPoint {
  /** Percent of the axis's width from its left edge. */
  left: number;
}

export interface AxisGap {
  /** The steps either side of the quiet period. */
  after: number;
  before: number;
  ms: number;
  left: number;
  width: number;
}

export interface AxisLayout {
  from: number;
  to: number;
  ticks: AxisTick[];
  gaps: AxisGap[];
}

/** A gap is a pause this many times the branch's median pause, and at least a second long. */
const GAP_FACTOR = 5;
const MIN_GAP_MS = 1000;

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  // The lower median: on a short branch (two pauses) the long pause is not its own yardstick.
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * Ticks and gaps of the window shown: the whole branch at zoom 1, half of it at zoom 2…,
 * centred on `center` (a time) as far as the branch's ends allow.
 */
export function layoutTimeAxis(points: readonly AxisPoint[], zoom: number, center: number | null): AxisLayout {
  const sorted = [...points].sort((a, b) => a.at - b.at || a.version - b.version);
  if (sorted.length === 0) return { from: 0, to: 0, ticks: [], gaps: [] };
  const first = sorted[0]!.at;
  const last = sorted[sorted.length - 1]!.at;
  const span = Math.max(last - first, 1);
  const width = span / Math.max(zoom, 1);
  const middle = center ?? first + span / 2;
  const from = Math.min(Math.max(middle - width / 2, first), last - width);
  const to = from + width;
  const place = (at: number) => Math.min(100, Math.max(0, ((at - from) / width) * 100));
  const ticks = sorted.filter((p) => p.at >= from && p.at <= to).map((p) => ({ ...p, left: place(p.at) }));
  const pauses = sorted.slice(1).map((p, i) => p.at - sorted[i]!.at);
  const threshold = Math.max(MIN_GAP_MS, GAP_FACTOR * median(pauses));
  const gaps: AxisGap[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (b.at - a.at < threshold || b.at < from || a.at > to) continue;
    const left = place(Math.max(a.at, from));
    gaps.push({ after: a.version, before: b.version, ms: b.at - a.at, left, width: place(Math.min(b.at, to)) - left });
  }
  return { from, to, ticks, gaps };
}

/** The step that was current at `time`: the last one at or before it (the first if `time` is earlier). */
export function stepAt(points: readonly AxisPoint[], time: number): number | null {
  let found: AxisPoint | null = null;
  for (const p of points) if (p.at <= time && (!found || p.at > found.at || (p.at === found.at && p.version > found.version))) found = p;
  if (found) return found.version;
  const earliest = [...points].sort((a, b) => a.at - b.at)[0];
  return earliest?.version ?? null;
}
