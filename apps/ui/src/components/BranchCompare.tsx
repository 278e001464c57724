import { useState } from 'react';
import { get, query, sessionPath } from '../api/client';
import type { Branch, Diff, DiffItem } from '../api/types';
import { useLoad } from '../hooks';
import { ChangeItems } from './ChangeList';
import { ErrorMessage } from './common';

const branchName = (b: Branch) => `${b.name ? `${b.name} · ` : ''}ends at step ${b.tip}${b.containsHead ? ' · head' : ''}`;

/**
 * Two branches side by side: what only one of them holds (messages, thoughts, decisions, tool
 * calls, memory…) in its own column, and what both hold differently below — their tips' diffs.
 */
export function BranchCompare({ sessionId, branches }: { sessionId: string; branches: readonly Branch[] }) {
  const head = branches.find((b) => b.containsHead) ?? branches[0];
  const other = branches.find((b) => b !== head);
  const [left, setLeft] = useState(head?.tip ?? 0);
  const [right, setRight] = useState(other?.tip ?? 0);
  // Both ways: what the right adds is said as added going left → right, what the left adds going right → left.
  const diff = useLoad(async () => {
    if (!left || !right || left === right) return null;
    const read = (from: number, to: number) => get<Diff>(`${sessionPath(sessionId)}/diff${query({ from, to })}`);
    const [toRight, toLeft] = await Promise.all([read(left, right), read(right, left)]);
    return { left, right, toRight, toLeft };
  }, [sessionId, left, right]);
  if (branches.length < 2) return null;
  const shown = diff.error || diff.data?.left !== left || diff.data?.right !== right ? null : diff.data;
  const added = (d: Diff | undefined, op: DiffItem['op']) => (d?.items ?? []).filter((i) => i.op === op);
  const picker = (label: string, value: number, set: (tip: number) => void) => (
    <label>
      {label}
      <select aria-label={label} value={value} onChange={(e) => set(Number(e.target.value))}>
        {branches.map((b) => (
          <option key={b.tip} value={b.tip}>
            {branchName(b)}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section className="panel branch-compare" aria-labelledby="branch-compare-title">
      <h2 id="branch-compare-title">Two branches side by side</h2>
      <div className="filters">
        {picker('Left branch', left, setLeft)}
        {picker('Right branch', right, setRight)}
      </div>
      <ErrorMessage error={diff.error} />
      {left === right && <p className="muted">Choose two different branches.</p>}
      {shown && (
        <>
          <div className="side-by-side">
            <section aria-label="Only on the left branch">
              <h3>Only on the left (step {left})</h3>
              <ChangeItems items={added(shown.toLeft, 'added')} empty="Nothing the right branch lacks." />
            </section>
            <section aria-label="Only on the right branch">
              <h3>Only on the right (step {right})</h3>
              <ChangeItems items={added(shown.toRight, 'added')} empty="Nothing the left branch lacks." />
            </section>
          </div>
          <section aria-label="Different on the two branches">
            <h3>Different on the two</h3>
            <ChangeItems items={added(shown.toRight, 'changed')} empty="Nothing both hold differently." />
          </section>
        </>
      )}
    </section>
  );
}
