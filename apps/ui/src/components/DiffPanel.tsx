import { useEffect, useState, type FormEvent } from 'react';
import { get, query, sessionPath } from '../api/client';
import type { Diff } from '../api/types';
import { numberParam, setViewParams, useLoad, useViewParams } from '../hooks';
import { ChangeItems } from './ChangeList';
import { ErrorMessage } from './common';

/** What changed between any two steps, on the same branch or across branches. */
export function DiffPanel({ sessionId, initialFrom, initialTo }: { sessionId: string; initialFrom: number; initialTo: number }) {
  // The pair compared is in the URL (from, to): a link shows this very diff.
  const view = useViewParams();
  const asked = { from: numberParam(view, 'from') ?? initialFrom, to: numberParam(view, 'to') ?? initialTo };
  const [from, setFrom] = useState(String(asked.from));
  const [to, setTo] = useState(String(asked.to));
  useEffect(() => {
    setFrom(String(asked.from));
    setTo(String(asked.to));
  }, [asked.from, asked.to]);
  const diff = useLoad(() => get<Diff>(`${sessionPath(sessionId)}/diff${query(asked)}`), [sessionId, asked.from, asked.to]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setViewParams({ from: Number(from), to: Number(to) });
  };

  return (
    <section className="panel diff" aria-labelledby="diff-title">
      <h2 id="diff-title">Diff</h2>
      <form className="filters" onSubmit={submit}>
        <label>
          From step
          <input type="number" min={1} required value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To step
          <input type="number" min={1} required value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
        <button type="submit">Compare</button>
      </form>
      <ErrorMessage error={diff.error} />
      {/* Under an error, no other pair's changes: they would read as this pair's. */}
      {diff.data && !diff.error && (
        <>
          <h3>
            From step {diff.data.from} to step {diff.data.to}
          </h3>
          <ChangeItems items={diff.data.items} empty="The two steps hold the same state." />
        </>
      )}
    </section>
  );
}
