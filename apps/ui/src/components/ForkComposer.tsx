import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { HeadMove } from './HeadMoveDialog';

type What = 'message' | 'memory' | 'context-var';

/** A value as typed: JSON when it parses (42, true, {"a": 1}), else the text itself. */
export function typedValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Fork from the past (seed 002 §4.2): what to write at a past step — a user message, or a
 * memory or context value changed there — and the new branch's name. It hands a fork move
 * to the head-move dialog, which shows the plan of effects to compensate before anything moves.
 */
export function ForkComposer({
  atVersion,
  memoryKeys,
  onCompose,
  onClose,
}: {
  atVersion: number;
  /** Memory keys at the session's head, offered as suggestions. */
  memoryKeys: readonly string[];
  onCompose: (move: HeadMove) => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [what, setWhat] = useState<What>('message');
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [branchName, setBranchName] = useState('');

  useEffect(() => {
    dialog.current?.showModal();
  }, []);

  const ready = what === 'message' ? text.trim().length > 0 : name.trim().length > 0 && value.length > 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    const step =
      what === 'message'
        ? { kind: 'message', role: 'user', content: text }
        : what === 'memory'
          ? { kind: 'memory', key: name.trim(), value: typedValue(value) }
          : { kind: 'context-var', name: name.trim(), value: typedValue(value) };
    const label = branchName.trim();
    onCompose({
      action: 'fork',
      body: { atVersion, steps: [step], ...(label ? { branchName: label } : {}) },
      title: `Fork from step ${atVersion}${label ? ` as “${label}”` : ''}`,
    });
  };

  return (
    <dialog ref={dialog} className="move-dialog fork-composer" aria-labelledby="fork-title" onClose={onClose}>
      <form onSubmit={submit}>
        <h2 id="fork-title">Fork from step {atVersion}</h2>
        <p className="muted">
          Start a new branch at this step: the head moves here (effects after it are compensated, as the next screen shows) and what you write becomes its first
          step. The current branch stays readable.
        </p>
        <fieldset>
          <legend>What to write</legend>
          {(
            [
              ['message', 'A user message'],
              ['memory', 'A memory value'],
              ['context-var', 'A context variable'],
            ] as const
          ).map(([kind, label]) => (
            <label key={kind} className="choice">
              <input type="radio" name="fork-what" value={kind} checked={what === kind} onChange={() => setWhat(kind)} /> {label}
            </label>
          ))}
        </fieldset>
        {what === 'message' ? (
          <label className="field">
            Message
            <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} required />
          </label>
        ) : (
          <>
            <label className="field">
              {what === 'memory' ? 'Memory key' : 'Variable name'}
              <input value={name} onChange={(e) => setName(e.target.value)} list={what === 'memory' ? 'fork-memory-keys' : undefined} required />
            </label>
            {what === 'memory' && (
              <datalist id="fork-memory-keys">
                {memoryKeys.map((k) => (
                  <option key={k} value={k} />
                ))}
              </datalist>
            )}
            <label className="field">
              Value <span className="muted">(JSON, or plain text)</span>
              <input value={value} onChange={(e) => setValue(e.target.value)} required />
            </label>
          </>
        )}
        <label className="field">
          Branch name <span className="muted">(optional)</span>
          <input value={branchName} onChange={(e) => setBranchName(e.target.value)} maxLength={100} />
        </label>
        <div className="dialog-actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!ready}>
            Show the plan
          </button>
        </div>
      </form>
    </dialog>
  );
}
