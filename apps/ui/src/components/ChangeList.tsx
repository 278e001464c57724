import { describeChanges } from '../api/sentences';
import type { Change } from '../api/types';

/** The changes as plain sentences, each marked added / removed / changed. */
export function ChangeSentences({ changes, empty }: { changes: readonly Change[]; empty: string }) {
  const sentences = describeChanges(changes);
  if (sentences.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="sentences">
      {sentences.map((sentence, i) => (
        <li key={i}>{sentence}</li>
      ))}
    </ul>
  );
}
