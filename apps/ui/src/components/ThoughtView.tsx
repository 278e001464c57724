import type { SessionStateView } from '../api/types';

type Thought = SessionStateView['thoughts'][number];

/**
 * The agent's reasoning on the path to this step (seed 002 §4.3). Shown apart from the
 * conversation: thoughts are not something the agent told anyone, and never reach the model
 * unless a caller asks (`GET …/context?includeThoughts=true`).
 */
export function ThoughtList({ thoughts, step }: { thoughts: readonly Thought[]; step: number }) {
  if (thoughts.length === 0) return null;
  return (
    <section className="thoughts" aria-labelledby="thoughts-title">
      <h3 id="thoughts-title">Agent thoughts</h3>
      <p className="muted">The agent&apos;s reasoning on this path: kept for you, left out of what the model sees.</p>
      <ol className="thought-list">
        {thoughts.map((t) => (
          <li key={t.thoughtId} className={t.version === step ? 'thought changed' : 'thought'} data-version={t.version}>
            <p>
              <span className="muted">step {t.version}</span> {t.content}
            </p>
            {t.steps.length > 0 && (
              <ol className="thought-steps" aria-label={`Reasoning steps of step ${t.version}`}>
                {t.steps.map((s, i) => (
                  <li key={i}>{s}</li>
                ))}
              </ol>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
