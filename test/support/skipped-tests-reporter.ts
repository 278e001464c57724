import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

/**
 * Lists, after the run, every test that did not run and why: `npm test` otherwise prints a
 * skipped count and nothing else. A wholly skipped group is one line; the reason is what the
 * test (or its group) was told by `ctx.skip(note)`, else the `[skipped: …]` its name carries.
 * Silent when a `-t` filter skips the rest on purpose.
 */
export default class SkippedTestsReporter implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (this.filtered) return;
    const groups = new Map<string, { count: number; reason: string }>();
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const { where, reason } = describeSkip(test);
        const line = `${module.relativeModuleId} › ${where}`;
        const group = groups.get(line);
        if (group) group.count++;
        else groups.set(line, { count: 1, reason });
      }
    }
    if (groups.size === 0) return;
    const total = [...groups.values()].reduce((sum, g) => sum + g.count, 0);
    const lines = [...groups].map(([line, { count, reason }]) => `  - ${line}${count > 1 ? ` (${count} tests)` : ''}: ${reason}`);
    process.stdout.write(`\n Skipped (${total}), and why:\n${lines.join('\n')}\n\n`);
  }
}

/** The outermost skipped suite holding the test (or the test itself), and the reason given. */
function describeSkip(test: TestCase): { where: string; reason: string } {
  let where: { name: string; fullName: string } = test;
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) {
    if (parent.options.mode !== 'skip' && parent.options.mode !== 'todo') break;
    where = parent;
  }
  const result = test.result();
  const note = result.state === 'skipped' ? result.note : undefined;
  const named = /\[skipped: ([^\]]+)\]/.exec(where.name)?.[1] ?? /\[skipped: ([^\]]+)\]/.exec(test.fullName)?.[1];
  const reason = note ?? named ?? (test.options.mode === 'todo' ? 'a todo' : 'no reason given (name the reason in the test or pass it to ctx.skip)');
  return { where: where.fullName.replace(/\s*\[skipped: [^\]]+\]/, ''), reason };
}
