import { describe, expect, it } from 'vitest';
import { startLoggedApp } from '../../../../test/support/logged-app';

// Its own file (its own process): Nest's start-up lines go through a process-wide logger, the last app's.
describe('logs at debug level', () => {
  it('has the route mapping, at debug', async () => {
    const t = await startLoggedApp('debug');
    try {
      const mapped = t.lines().filter((l) => /Mapped \{\/v1\/sessions, POST\} route/.test(l.msg));
      expect(mapped).toEqual([expect.objectContaining({ level: 'debug', context: 'RouterExplorer' })]);
    } finally {
      await t.close();
    }
  });
});
