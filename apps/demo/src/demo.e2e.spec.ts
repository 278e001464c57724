import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runDemo } from './demo';

describe('npm run demo', () => {
  it('records seed 002 over HTTP, time-travels, branches, diffs, and cleans up', async () => {
    const lines: string[] = [];
    await runDemo((line) => lines.push(line));
    const output = lines.join('\n');

    // It completes.
    expect(lines[lines.length - 1]).toMatch(/^Done:/);

    // The section printed under a heading, up to the next heading.
    const section = (title: string) => {
      const start = lines.findIndex((l) => l.startsWith(`== ${title}`));
      expect(start, `section "${title}"`).toBeGreaterThanOrEqual(0);
      const end = lines.findIndex((l, i) => i > start && l.startsWith('== '));
      return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
    };

    // Past states show the memory as it was then.
    const afterDestination = section('Time travel: the state at v5,');
    expect(afterDestination).toMatch(/destination\s+"Paris"/);
    expect(afterDestination).not.toContain('flight ');
    expect(afterDestination).toContain('Paris, maybe?');
    const afterFlight = section('Time travel: the state at v12,');
    expect(afterFlight).toMatch(/destination\s+"Paris"/);
    expect(afterFlight).toMatch(/flight\s+\{"flight":"AF1235"/);
    expect(afterFlight).not.toContain('hotel');
    expect(afterFlight).toContain('The morning one, please.');

    // Undo took back the agent's last message; the rollback to the checkpoint went back further.
    const undo = section('Undo the last step');
    expect(undo).toMatch(/head v16 -> v15/);
    expect(undo).toMatch(/hotel\s+\{"name":"Hotel des Arts Montmartre"/);
    expect(undo).not.toContain('I suggest');
    expect(section('The user changes their mind')).toMatch(/head v15 -> v6/);
    expect(section('The user changes their mind')).toContain('RollbackCompleted');

    // Both branches, forked at the checkpoint, with the head on the new one.
    const timeline = section('Timeline with both branches');
    expect(timeline).toContain('branches: 2');
    expect(timeline).toMatch(/\|- branch 1 \(tip v16\)/);
    expect(timeline).toMatch(/`- branch 2 \(tip v28\)/);
    expect(timeline).toMatch(/tip v16\s+15 steps\s+forked at v6/);
    expect(timeline).toMatch(/tip v28\s+14 steps\s+forked at v6\s+\(head is on this branch\)/);
    expect(timeline).toMatch(/v28\s+MemoryWritten\s+memory flight = .*FR1142.*<== HEAD/);
    expect(timeline).toContain('[checkpoint "destination-chosen"]');
    expect(timeline).toContain('rollback v15 -> v6: completed');
    expect(timeline).toContain('undo v16 -> v15: completed');

    // Both tips are readable, and the diff says what differs.
    const tips = section('Branch tips: v16 (Paris) and v28 (Lisbon)');
    expect(tips).toMatch(/hotel\s+\{"name":"Hotel des Arts Montmartre"/);
    expect(tips).toMatch(/destination\s+"Lisbon"/);
    const diff = section('Diff between the branch tips');
    expect(diff).toMatch(/changed\s+memory\.destination\s+"Paris"\s+->\s+"Lisbon"/);
    expect(diff).toMatch(/removed\s+memory\.hotel/);
    expect(diff).toMatch(/added\s+toolCalls\.search-flights-2/);

    // Act 2: the saga cancels the hotel at the real travel service; the flight stays booked.
    expect(output).toMatch(/book_hotels "book-hotel": compensated after 1 attempt\(s\)/);
    expect(output).toMatch(/flight F-\w+ is booked, hotel H-\w+ is cancelled/);
    expect(output).toMatch(/rollback v8 -> v4: completed/);

    // The throw-away data directory is gone.
    const dataDir = /data in (\S+),/.exec(output)?.[1];
    expect(dataDir).toBeDefined();
    expect(existsSync(dataDir!)).toBe(false);
  });
});
