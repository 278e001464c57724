import { describe, expect, it } from 'vitest';
import { attemptsSaid, outcomeWord } from './outcome-key';

describe('compensation outcomes in words', () => {
  it('says an irreversible effect a rollback went past as kept, not as skipped', () => {
    expect(outcomeWord('skipped')).toBe('kept — irreversible');
    expect(outcomeWord('compensated')).toBe('compensated');
    expect(outcomeWord('needs_attention')).toBe('needs attention');
  });

  it('says a compensation in flight is under way, never "0 attempts"', () => {
    expect(attemptsSaid({ status: 'pending', attempts: 0 }, 'in_progress')).toBe('first attempt under way');
    expect(attemptsSaid({ status: 'pending', attempts: 2 }, 'in_progress')).toBe('attempt 3 under way');
    expect(attemptsSaid({ status: 'compensated', attempts: 1 }, 'completed')).toBe('1 attempt');
    expect(attemptsSaid({ status: 'failed', attempts: 3 }, 'needs_attention')).toBe('3 attempts');
    expect(attemptsSaid({ status: 'skipped', attempts: 0 }, 'completed')).toBeNull();
  });
});
