import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TravelService } from '@rewind/demo';
import { LiveFeed } from '@rewind/api';
import type { Http } from '../../../test/support/http-client';
import { startTestApp, type TestApp } from '../../../test/support/test-app';

/**
 * Finding one's way in the time-travel UI (deep links, search, time axis, every rollback, the
 * audit log newest first), diffs said completely, resilience and access (axe on every view,
 * focus), in Debian's Chromium against the real API and a real local travel service.
 * Screenshots of every view land in test-results/ui/ (CI keeps them as artefacts).
 */
const CHROMIUM = process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'ui');
const UI_INDEX = join(__dirname, '..', 'dist', 'index.html');
const EVENTUALLY = { timeout: 15_000 };
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const canRun = existsSync(CHROMIUM) || inCi;
const suiteName = canRun
  ? 'finding your way, complete diffs, resilience and access in the UI, in Chromium'
  : `finding your way in the UI (skipped: no Chromium at ${CHROMIUM} — apt-get install -y chromium; CI fails instead of skipping)`;

/** axe-core's serious and critical violations on the page as it is now (rule id and the first offending nodes). */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.addScriptTag({ content: axe.source });
  const results = (await page.evaluate('window.axe.run(document, { resultTypes: ["violations"] })')) as axe.AxeResults;
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
}

(canRun ? describe : describe.skip)(suiteName, () => {
  let t: TestApp;
  let http: Http;
  let travel: TravelService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tripId: string;
  /** Versions of the trip's notable steps. */
  const v = { lisbon: 0, lisbonAnswer: 0, porto: 0, hotel: 0, booked: 0, seat: 0 };
  let rollbacks: string[] = [];

  const shot = (p: Page, name: string, fullPage = true) => p.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
  /** Runs axe on the view and keeps its screenshot. */
  async function checkView(p: Page, name: string, fullPage = true) {
    expect(await seriousViolations(p), `axe on the ${name} view`).toEqual([]);
    await shot(p, name, fullPage);
  }

  async function step(method: string, path: string, body?: unknown) {
    const res = await http(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  }

  /** A person asks for Lisbon, changes their mind for Porto (a branch), a hotel is booked then rolled back (compensated). */
  async function recordTrip(): Promise<string> {
    const id = `nav-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await step('POST', '/v1/sessions', { sessionId: id, title: 'Porto, not Lisbon' });
    v.lisbon = (await step('POST', `${s}/messages`, { role: 'user', content: 'Plan a weekend in Lisbon' })).version;
    v.lisbonAnswer = (await step('POST', `${s}/messages`, { role: 'agent', content: 'Lisbon it is: which dates?' })).version;
    await step('POST', `${s}/rollback`, { toVersion: 1 });
    v.porto = (await step('POST', `${s}/messages`, { role: 'user', content: 'Plan a weekend in Porto' })).version;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a visible gap on the time axis
    v.hotel = (await step('POST', `${s}/tool-calls`, { toolCallId: 'h1', tool: 'book_hotels', input: { city: 'Porto' } })).version;
    const res = await fetch(`${travel.url}/hotels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"city":"Porto"}' });
    v.booked = (await step('POST', `${s}/tool-calls/h1/succeed`, { output: await res.json() })).version;
    await step('POST', `${s}/rollback`, { toVersion: v.porto });
    await untilActive(s);
    v.seat = (await step('PUT', `${s}/memory/seat`, { value: 'window' })).version;
    rollbacks = ((await http('GET', `${s}/timeline`)).body.rollbacks as { rollbackId: string }[]).map((r) => r.rollbackId);
    return id;
  }

  /** Waits (outside a test: no expect.poll) until the rollback's saga has finished. */
  async function untilActive(sessionPath: string) {
    for (let i = 0; i < 150 && (await http('GET', sessionPath)).body.status !== 'active'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await http('GET', sessionPath)).body.status).toBe('active');
  }

  /** A fresh browser context signed in with the admin key, on `hash`. */
  async function signedIn(hash: string, viewport = { width: 1440, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
    const c = await browser.newContext({ viewport });
    const p = await c.newPage();
    await p.goto(`${t.baseUrl}/ui/`);
    await p.evaluate(`sessionStorage.setItem("rewind.apiKey", ${JSON.stringify(t.adminKey)})`);
    await p.goto(`${t.baseUrl}/ui/${hash}`);
    await p.reload();
    return { context: c, page: p };
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (.ci/run does).`);
    if (!existsSync(UI_INDEX)) throw new Error(`The UI is not built (${UI_INDEX} is missing): run \`npm run build\` first.`);
    mkdirSync(SCREENSHOTS, { recursive: true });
    travel = new TravelService();
    await travel.start();
    t = await startTestApp();
    http = t.http;
    await step('PUT', '/v1/tools/book_hotels', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel`, payload: { reason: 'rolled back' } },
      retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 },
    });
    tripId = await recordTrip();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    ({ context, page } = await signedIn(`#/sessions/${tripId}`));
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await travel?.stop();
  });

  it('says a bad key once, and passes axe on the sign-in view', async () => {
    const c = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const p = await c.newPage();
      await p.goto(`${t.baseUrl}/ui/`);
      await checkView(p, 'sign-in');
      await p.getByLabel('API key').fill('not-a-key');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('alert').filter({ hasText: 'This API key was refused' }).waitFor(EVENTUALLY);
      expect(await p.getByRole('alert').count()).toBe(1);
      expect(await p.getByRole('status').count()).toBe(0);
      await checkView(p, 'sign-in-refused');
    } finally {
      await c.close();
    }
  });

  it('marks the abandoned branch, the compensated booking and the time between steps on the timeline', async () => {
    await page.getByRole('heading', { name: `State at step ${v.seat}` }).waitFor(EVENTUALLY);
    const node = (version: number) => page.locator(`.graph .node[data-version="${version}"]`);
    // The Lisbon answer and the booking are not in the head's history any more; the Porto message is.
    expect(await node(v.lisbonAnswer).getAttribute('class')).toContain('abandoned');
    expect(await node(v.booked).getAttribute('class')).toContain('abandoned');
    expect(await node(v.porto).getAttribute('class')).not.toContain('abandoned');
    // The call whose effect the rollback undid says so, drawn and in its name.
    await expect.poll(() => node(v.hotel).getAttribute('data-effect'), EVENTUALLY).toBe('compensated');
    expect(await node(v.hotel).getAttribute('aria-label')).toContain('effect compensated');
    expect(await page.locator('.graph .effect-label').first().textContent()).toContain('compensated');
    // Durations on the edges: the second's pause before the booking reads as seconds.
    const durations = await page.locator('.graph text.duration').allTextContents();
    expect(durations.length).toBeGreaterThan(0);
    expect(durations.every((d) => /^\+\d/.test(d))).toBe(true);
    expect(durations.some((d) => / s$/.test(d))).toBe(true);
    const branches = await page.getByLabel('Branch', { exact: true }).locator('option').allTextContents();
    expect(branches.filter((b) => b.includes('abandoned'))).toHaveLength(2);
    await checkView(page, 'timeline-marks');
  });

  it('finds steps by text and by kind, and goes from match to match', async () => {
    await page.getByLabel('Find steps').fill('WEEKEND');
    const status = page.locator('.timeline-find [role="status"]');
    const matches = () => page.locator('.graph .node.match').evaluateAll((ns) => ns.map((n) => Number(n.getAttribute('data-version'))));
    await expect.poll(matches, EVENTUALLY).toEqual([v.lisbon, v.porto]);
    expect(await status.textContent()).toContain('2 matching steps');
    expect(await page.locator('.graph .node.no-match').count()).toBeGreaterThan(0);
    // From the head (the newest step), the next match wraps round to the first.
    await page.getByRole('button', { name: 'Next match →' }).click();
    await page.getByRole('heading', { name: `State at step ${v.lisbon}` }).waitFor(EVENTUALLY);
    expect(await status.textContent()).toContain('Match 1 of 2');
    await page.getByRole('button', { name: 'Next match →' }).click();
    await page.getByRole('heading', { name: `State at step ${v.porto}` }).waitFor(EVENTUALLY);
    await page.getByLabel('Find steps').fill('no step says this');
    await expect.poll(() => status.textContent(), EVENTUALLY).toBe('No step matches.');
    // By kind only: the tool call and its result.
    await page.getByLabel('Find steps').fill('');
    await page.getByLabel('Kind').selectOption('tools');
    await expect.poll(matches, EVENTUALLY).toEqual([v.hotel, v.booked]);
    await checkView(page, 'timeline-search');
    await page.getByLabel('Kind').selectOption('');
    expect(await page.locator('.graph .node.match').count()).toBe(0);
  });

  it('opens every rollback of the session, not only the latest', async () => {
    const picker = page.getByLabel('Rollback shown');
    expect(await picker.locator('option').count()).toBe(2);
    await picker.selectOption(rollbacks[0]!);
    await expect.poll(() => page.locator('.saga').textContent(), EVENTUALLY).toContain(`rollback from step ${v.lisbonAnswer} to step 1`);
    expect(await page.locator('.saga').textContent()).toContain('No effect to compensate.');
    await picker.selectOption(rollbacks[1]!);
    await expect.poll(() => page.locator('.saga li[data-call="h1"]').textContent(), EVENTUALLY).toContain('compensated');
    expect(decodeURIComponent(page.url())).toContain(`rollback=${rollbacks[1]}`);
  });

  it('puts the step, branch, tab and diff pair in the URL: a second browser opens the same view, and back and forward move between views', async () => {
    await page.locator(`.graph .node[data-version="${v.lisbonAnswer}"]`).click();
    await page.getByRole('heading', { name: `State at step ${v.lisbonAnswer}` }).waitFor(EVENTUALLY);
    expect(page.url()).toContain(`step=${v.lisbonAnswer}`);
    expect(page.url()).toContain(`branch=${v.lisbonAnswer}`);
    await page.getByRole('tab', { name: 'Diff' }).click();
    await page.getByLabel('From step').fill(String(v.lisbonAnswer));
    await page.getByLabel('To step').fill(String(v.porto));
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('heading', { name: `From step ${v.lisbonAnswer} to step ${v.porto}` }).waitFor(EVENTUALLY);
    const link = page.url();
    expect(link).toMatch(/tab=diff/);
    expect(link).toContain(`from=${v.lisbonAnswer}`);
    expect(link).toContain(`to=${v.porto}`);

    const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const p = await other.newPage();
      await p.goto(`${t.baseUrl}/ui/`);
      await p.evaluate(`sessionStorage.setItem("rewind.apiKey", ${JSON.stringify(t.adminKey)})`);
      await p.goto(link);
      await p.reload();
      await p.getByRole('heading', { name: `From step ${v.lisbonAnswer} to step ${v.porto}` }).waitFor(EVENTUALLY);
      expect(await p.getByRole('tab', { name: 'Diff' }).getAttribute('aria-selected')).toBe('true');
      expect(await p.locator('.graph .node.selected').getAttribute('data-version')).toBe(String(v.lisbonAnswer));
      expect(await p.getByLabel('Branch', { exact: true }).inputValue()).toBe(String(v.lisbonAnswer));
    } finally {
      await other.close();
    }

    await page.goBack(); // the diff pair before Compare
    await expect.poll(() => page.url(), EVENTUALLY).not.toContain(`to=${v.porto}`);
    await page.goBack(); // the state tab
    await page.getByRole('heading', { name: `State at step ${v.lisbonAnswer}` }).waitFor(EVENTUALLY);
    await page.goForward();
    await page.goForward();
    await page.getByRole('heading', { name: `From step ${v.lisbonAnswer} to step ${v.porto}` }).waitFor(EVENTUALLY);
  });

  it('says every changed and removed message in words, and the diff fits at 1 440 px and on a phone', async () => {
    const sentences = page.locator('.diff .change-items');
    await expect.poll(() => sentences.textContent(), EVENTUALLY).toContain("the user said 'Plan a weekend in Porto' (turn 1)");
    expect(await sentences.textContent()).toContain("the user's message 'Plan a weekend in Lisbon' (turn 1) is no longer on the path");
    expect(await sentences.textContent()).toContain("the agent's message 'Lisbon it is: which dates?' (turn 1) is no longer on the path");
    const viewport = page.viewportSize()!;
    const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    // The JSON of a change on request, under its sentence.
    await sentences.locator('.change-item').first().getByText('JSON', { exact: true }).click();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await checkView(page, 'diff-1440');

    await page.setViewportSize({ width: 390, height: 844 });
    await sentences.locator('.change-item').first().waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    for (const box of await sentences.locator('.change-item').evaluateAll((items) => items.map((c) => c.getBoundingClientRect().right))) {
      expect(box).toBeLessThanOrEqual(390);
    }
    await checkView(page, 'diff-phone');
    await page.setViewportSize(viewport);
  });

  it('returns focus to the button that opened a dialog, and moves it to the heading of a new page', async () => {
    await page.goto(`${t.baseUrl}/ui/#/sessions/${tripId}`);
    await page.getByRole('heading', { name: `State at step ${v.seat}` }).waitFor(EVENTUALLY);
    const undo = page.getByRole('button', { name: 'Undo' });
    await undo.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('nothing to compensate', { exact: false }).waitFor(EVENTUALLY);
    await checkView(page, 'undo-dialog', false);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count(), EVENTUALLY).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.textContent'), EVENTUALLY).toContain('Undo');

    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await expect.poll(() => page.evaluate('document.activeElement?.tagName + " " + document.activeElement?.textContent'), EVENTUALLY).toBe('H1 Audit log');
  });

  it('shows the audit log newest first, each event in full on request, filtered by family, and pages the ledger', async () => {
    await page.goto(`${t.baseUrl}/ui/#/audit/${tripId}`);
    const rows = page.locator('.audit-table tbody tr[data-type]');
    await expect.poll(() => rows.count(), EVENTUALLY).toBeGreaterThan(5);
    // No log position on the page (it would count other tenants' writes): newest first by time and by step.
    const times = await rows.locator('td:nth-child(1) time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime') ?? ''));
    expect(times.length).toBe(await rows.count());
    expect(times).toEqual([...times].sort().reverse());
    const steps = (await rows.locator('td:nth-child(4)').allTextContents()).map((text) => Number(text.split('·').pop()));
    expect(steps).toEqual([...steps].sort((a, b) => b - a));
    expect(await rows.first().getAttribute('data-type')).toBe('MemoryWritten'); // the seat, the newest
    await rows.first().getByRole('button', { name: /Show/ }).click();
    await expect.poll(() => rows.first().locator('pre.json').textContent(), EVENTUALLY).toContain('"seat"');
    expect(await rows.first().locator('pre.json').textContent()).toContain('"metadata"');

    await page.getByLabel('Family').selectOption('time-travel');
    await expect
      .poll(async () => [...new Set(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-type'))))].sort(), EVENTUALLY)
      .toEqual(['CompensationApplied', 'RollbackCompleted', 'RollbackRequested']);
    await checkView(page, 'audit');

    await page.getByLabel('Oldest first').check();
    await expect.poll(() => rows.first().getAttribute('data-type'), EVENTUALLY).toBe('RollbackRequested');
  });

  it('shows compensations beyond the first 100 calls of a session, on the timeline and in a paged ledger; graph and slider answer the same keys', async () => {
    const id = `many-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await step('POST', '/v1/sessions', { sessionId: id, title: 'Many calls' });
    const calls = Array.from({ length: 110 }, (_, i) => [
      { kind: 'tool-call', toolCallId: `c${i}`, tool: 'lookup', input: { i } },
      { kind: 'tool-result', toolCallId: `c${i}`, output: { ok: i } },
    ]).flat();
    const before = (await step('POST', `${s}/steps`, { steps: calls })).version as number;
    const started = (await step('POST', `${s}/tool-calls`, { toolCallId: 'late', tool: 'book_hotels', input: { city: 'Porto' } })).version as number;
    const res = await fetch(`${travel.url}/hotels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"city":"Porto"}' });
    await step('POST', `${s}/tool-calls/late/succeed`, { output: await res.json() });
    await step('POST', `${s}/rollback`, { toVersion: before });
    await expect.poll(async () => (await http('GET', s)).body.status, EVENTUALLY).toBe('active');

    await page.goto(`${t.baseUrl}/ui/#/sessions/${id}?step=${started}`);
    await expect.poll(() => page.locator(`.graph .node[data-version="${started}"]`).getAttribute('data-effect'), EVENTUALLY).toBe('compensated');
    await expect.poll(() => page.locator('.tool-calls tr', { hasText: 'late' }).textContent(), EVENTUALLY).toContain('compensated');

    // The same keys on the graph and on the slider: arrows one step, Page Up/Down ten, Home, End and h.
    const heading = (n: number) => page.getByRole('heading', { name: `State at step ${n}` }).waitFor(EVENTUALLY);
    for (const control of [page.locator('.graph'), page.locator('#step-slider')]) {
      await control.focus();
      await page.keyboard.press('Home');
      await heading(1);
      await page.keyboard.press('PageUp');
      await heading(11);
      await page.keyboard.press('ArrowUp');
      await heading(12);
      await page.keyboard.press('PageDown');
      await heading(2);
      await page.keyboard.press('End');
      await heading(started + 1);
      await page.keyboard.press('h');
      await heading(before);
      await page.goto(`${t.baseUrl}/ui/#/sessions/${id}?step=${started}`);
      await heading(started);
    }

    await page.goto(`${t.baseUrl}/ui/#/audit/${id}`);
    const ledgerRows = page.locator('.ledger tbody tr');
    await expect.poll(() => ledgerRows.count(), EVENTUALLY).toBe(50);
    const ledger = page.locator('section', { has: page.getByRole('heading', { name: 'Tool-call ledger' }) });
    for (let i = 0; i < 2; i++) await ledger.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => ledger.locator('tr[data-call="late"]').textContent(), EVENTUALLY).toContain('compensated');
  });

  it('searches every step of a long session on request, not only the pages read so far; a confirmed dialog gives focus back', async () => {
    const id = `long-find-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await step('POST', '/v1/sessions', { sessionId: id, title: 'A long chat' });
    const steps = Array.from({ length: 700 }, (_, i) => ({ kind: 'message', role: 'user', content: i < 5 ? `early question ${i}` : `later ${i}` }));
    await step('POST', `${s}/steps`, { steps });
    await page.goto(`${t.baseUrl}/ui/#/sessions/${id}`);
    await page.locator('.graph .node.head').waitFor(EVENTUALLY);
    await page.getByLabel('Find steps').fill('early question');
    const status = page.locator('.timeline-find [role="status"]');
    await expect.poll(() => status.textContent(), EVENTUALLY).toBe('No step matches.');
    expect(await page.locator('.find-result').textContent()).toMatch(/Searched \d+ of 701 steps/);
    await page.getByRole('button', { name: 'Search all 701 steps' }).click();
    await expect.poll(() => status.textContent(), EVENTUALLY).toBe('5 matching steps');
    expect(await page.getByRole('button', { name: /Search all/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Next match →' }).click();
    await page.getByRole('heading', { name: 'State at step 2' }).waitFor(EVENTUALLY);

    // A dialog confirmed (not only cancelled) gives focus back too, not to <body>.
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByRole('dialog').count(), EVENTUALLY).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.textContent'), EVENTUALLY).toContain('Undo');
  });

  it('says the server is unreachable with a retry, and recovers by itself: the sessions list and the state panel', async () => {
    const { context: c, page: p } = await signedIn('#/');
    try {
      // Down before the list is read: a banner, not a bare error; back up, the list comes by itself.
      await p.getByRole('link', { name: 'Porto, not Lisbon' }).waitFor(EVENTUALLY);
      await c.route('**/v1/**', (route) => route.abort('connectionrefused'));
      t.app.get(LiveFeed).endStreams();
      await p.reload();
      const banner = p.getByRole('alert').filter({ hasText: 'not answering' });
      await banner.waitFor(EVENTUALLY);
      expect(await banner.getByRole('button', { name: 'Retry now' }).isVisible()).toBe(true);
      await checkView(p, 'sessions-unreachable');
      await c.unrouteAll();
      await p.getByRole('link', { name: 'Porto, not Lisbon' }).waitFor({ timeout: 30_000 });
      await expect.poll(() => banner.count(), EVENTUALLY).toBe(0);
      await checkView(p, 'sessions');

      // On a session: a step read while the server is away says so (not "Loading…" for ever), and comes back by itself.
      await p.getByRole('link', { name: 'Porto, not Lisbon' }).click();
      await p.getByRole('heading', { name: `State at step ${v.seat}` }).waitFor(EVENTUALLY);
      await p.getByRole('status', { name: 'Updates: live' }).waitFor(EVENTUALLY);
      await c.route('**/v1/**', (route) => route.abort('connectionrefused'));
      t.app.get(LiveFeed).endStreams();
      await p.locator(`.graph .node[data-version="${v.porto}"]`).click();
      await p.getByRole('heading', { name: `Step ${v.porto} could not be read` }).waitFor(EVENTUALLY);
      expect(await p.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
      await banner.waitFor(EVENTUALLY);
      await checkView(p, 'state-unreachable');
      await c.unrouteAll();
      await p.getByRole('heading', { name: `State at step ${v.porto}` }).waitFor({ timeout: 30_000 });
      await expect.poll(() => banner.count(), EVENTUALLY).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('passes axe on the session view and on a phone', async () => {
    await page.goto(`${t.baseUrl}/ui/#/sessions/${tripId}`);
    await page.getByRole('heading', { name: `State at step ${v.seat}` }).waitFor(EVENTUALLY);
    await checkView(page, 'session');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('heading', { name: `State at step ${v.seat}` }).waitFor(EVENTUALLY);
    await checkView(page, 'session-phone');
    await page.setViewportSize({ width: 1440, height: 900 });
    await context.close();
  });
});
