import { useMemo, useState, type FormEvent } from 'react';
import { layoutTimeAxis, stepAt, type AxisPoint } from '../time-axis';
import { duration } from '../timeline-model';

const ZOOMS = [1, 2, 4, 8, 16, 32, 64];

/** `datetime-local` text for a time, in the browser's zone, to the second. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const clock = (ms: number) => new Date(ms).toLocaleTimeString('en-GB');
/** A pause's length as the graph's edges say it ("2 min"), without their "+". */
const pause = (ms: number) => (duration(new Date(0).toISOString(), new Date(ms).toISOString()) ?? '').replace(/^\+/, '');

/**
 * The branch's steps by when they happened: long pauses drawn as gaps with their length, a zoom
 * around the selected step, and a time to jump to (the step current then is selected).
 */
export function TimeAxis({ points, selected, onSelect }: { points: readonly AxisPoint[]; selected: number; onSelect: (version: number) => void }) {
  const [zoom, setZoom] = useState(1);
  const selectedAt = points.find((p) => p.version === selected)?.at ?? null;
  const layout = useMemo(() => layoutTimeAxis(points, zoom, selectedAt), [points, zoom, selectedAt]);
  const [jump, setJump] = useState('');
  if (points.length < 2) return null;
  const go = (e: FormEvent) => {
    e.preventDefault();
    const time = Date.parse(jump);
    if (!Number.isFinite(time)) return;
    // The input says a second: the step current at its end (a step at 09:00:05.300 is current "at 09:00:05").
    const version = stepAt(points, time + 999);
    if (version !== null) onSelect(version);
  };
  const level = ZOOMS.indexOf(zoom);
  return (
    <section className="time-axis" aria-labelledby="time-axis-title">
      <div className="time-axis-head">
        <h3 id="time-axis-title">Time axis</h3>
        <span className="muted" aria-live="polite">
          {clock(layout.from)} – {clock(layout.to)}
          {zoom > 1 ? ` · zoom ×${zoom}` : ''}
        </span>
        <span className="time-axis-tools">
          <button type="button" disabled={level >= ZOOMS.length - 1} onClick={() => setZoom(ZOOMS[level + 1]!)}>
            Zoom in
          </button>
          <button type="button" disabled={level <= 0} onClick={() => setZoom(ZOOMS[level - 1]!)}>
            Zoom out
          </button>
          <button type="button" disabled={zoom === 1} onClick={() => setZoom(1)}>
            Whole branch
          </button>
        </span>
      </div>
      <div className="time-axis-track">
        {layout.gaps.map((g) => (
          <span
            key={`${g.after}-${g.before}`}
            className="time-gap"
            style={{ left: `${g.left}%`, width: `${g.width}%` }}
            title={`Nothing happened for ${pause(g.ms)} between steps ${g.after} and ${g.before}`}
            data-after={g.after}
            data-before={g.before}
          >
            <span className="time-gap-label">{pause(g.ms)} pause</span>
          </span>
        ))}
        {layout.ticks.map((t) => (
          <button
            key={t.version}
            type="button"
            tabIndex={-1}
            className={t.version === selected ? 'time-tick selected' : 'time-tick'}
            style={{ left: `${t.left}%` }}
            aria-label={`Step ${t.version} at ${clock(t.at)}`}
            data-version={t.version}
            onClick={() => onSelect(t.version)}
          />
        ))}
      </div>
      <form className="time-jump" onSubmit={go}>
        <label>
          Jump to a time
          <input type="datetime-local" step={1} value={jump || (selectedAt !== null ? localInput(selectedAt) : '')} onChange={(e) => setJump(e.target.value)} />
        </label>
        <button type="submit">Go</button>
      </form>
    </section>
  );
}
