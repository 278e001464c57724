import type { DiffItem } from '../api/types';

/** What a change's kind is called where a person reads it. */
const KIND: Record<DiffItem['kind'], string> = {
  message: 'message',
  turn: 'turn',
  thought: 'thought',
  proposal: 'proposal',
  decision: 'decision',
  tool_call: 'tool call',
  tool_output: 'tool answer',
  memory: 'memory',
  context_variable: 'context variable',
  task: 'task',
  checkpoint: 'checkpoint',
  status: 'status',
};

/**
 * The changes between two steps as the server says them: one sentence each, marked with what
 * it is about and whether it was added, removed or changed; the item's JSON before and after on
 * request (a disclosure under the sentence, as wide as the list).
 */
export function ChangeItems({ items, empty }: { items: readonly DiffItem[]; empty: string }) {
  if (items.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="sentences change-items">
      {items.map((item, i) => (
        <li key={`${item.kind}:${item.ref}:${i}`} className={`change-item op-${item.op}`} data-kind={item.kind} data-ref={item.ref}>
          <span className={`badge kind-${item.kind}`}>{KIND[item.kind]}</span> <span className="summary">{item.summary}</span>
          {item.version !== null && <span className="muted"> · step {item.version}</span>}
          <details className="raw">
            <summary>JSON</summary>
            <div className="raw-pair">
              <div>
                <span className="muted">Before</span>
                <pre className="json">{item.before === null ? '(absent)' : JSON.stringify(item.before, null, 2)}</pre>
              </div>
              <div>
                <span className="muted">After</span>
                <pre className="json">{item.after === null ? '(absent)' : JSON.stringify(item.after, null, 2)}</pre>
              </div>
            </div>
          </details>
        </li>
      ))}
    </ul>
  );
}
