import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedItem } from './change-paths';

describe('the state item a diff path belongs to', () => {
  it('property: every change is attributed to the item that holds it, for highlighting', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('memory', 'contextVars', 'toolCalls'),
        fc.stringMatching(/^[a-z]{1,8}$/),
        fc.stringMatching(/^[a-z]{0,8}$/),
        (section, k, rest) => {
          expect(changedItem(`${section}.${k}${rest ? `.${rest}` : ''}`)).toBe(`${section}:${k}`);
        },
      ),
    );
    expect(changedItem('turns[3].messages[0]')).toBe('turns:3');
    expect(changedItem('status')).toBe('status');
  });
});
