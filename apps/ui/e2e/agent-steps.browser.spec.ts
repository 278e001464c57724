import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TravelService } from '@rewind/demo';
import type { Http } from '../../../test/support/http-client';
import { startTestApp, type TestApp } from '../../../test/support/test-app';

/**
 * The agent's thoughts, fork from the past and approvals in a real browser (Debian's Chromium, headless),
 * against the real API serving the built UI and a real travel service as the compensation server.
 */
const CHROMIUM = process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'ui');
const UI_INDEX = join(__dirname, '..', 'dist', 'index.html');
const EVENTUALLY = { timeout: 15_000 };
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const canRun = existsSync(CHROMIUM) || inCi;
const suiteName = canRun
  ? 'thoughts, forks and approvals in the UI, in Chromium'
  : `thoughts, forks and approvals in the UI (skipped: no Chromium at ${CHROMIUM} — apt-get install -y chromium; CI fails instead of skipping)`;

(canRun ? describe : describe.skip)(suiteName, () => {
  let t: TestApp;
  let http: Http;
  let travel: TravelService;
  let browser: Browser;
  let page: Page;

  const shot = (name: string, fullPage = true) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
  async function step(method: string, path: string, body?: unknown) {
    const res = await http(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  }
  const open = async (id: string) => {
    await page.goto(`${t.baseUrl}/ui/#/sessions/${id}`);
    await page.locator('.graph .node').first().waitFor();
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}, so the browser suite cannot run: apt-get install -y chromium.`);
    if (!existsSync(UI_INDEX)) throw new Error(`The UI is not built (${UI_INDEX} is missing): run \`npm run build\` first.`);
    mkdirSync(SCREENSHOTS, { recursive: true });
    travel = new TravelService();
    await travel.start();
    t = await startTestApp();
    http = t.http;
    await step('PUT', '/v1/tools/book_hotels', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel`, payload: { reason: 'forked in the UI' } },
      retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${t.baseUrl}/ui/`);
    await page.getByLabel('API key').fill(t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('table').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await travel?.stop();
  });

  it("shows the agent's thoughts on the timeline and in the state panel, apart from the conversation", async () => {
    const id = `think-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await step('POST', '/v1/sessions', { sessionId: id, title: 'Thinking agent' });
    await step('POST', `${s}/messages`, { role: 'user', content: 'Find me a quiet hotel in Lisbon' });
    const thought = (await step('POST', `${s}/thoughts`, { content: 'Quiet means away from Bairro Alto.', steps: ['rule out Bairro Alto', 'search Alfama'] }))
      .version as number;
    await step('POST', `${s}/messages`, { role: 'agent', content: 'Alfama Inn is quiet.' });
    await open(id);
    const node = page.locator(`.graph [data-version="${thought}"]`);
    expect(await node.textContent()).toContain('thought');
    await node.click();
    await page.getByRole('heading', { name: `State at step ${thought}` }).waitFor();
    const section = page.getByRole('region', { name: 'Agent thoughts' });
    await expect.poll(() => section.textContent(), EVENTUALLY).toContain('Quiet means away from Bairro Alto.');
    expect(
      await section
        .getByRole('list', { name: `Reasoning steps of step ${thought}` })
        .locator('li')
        .allTextContents(),
    ).toEqual(['rule out Bairro Alto', 'search Alfama']);
    expect(await section.locator(`[data-version="${thought}"]`).getAttribute('class')).toContain('changed');
    // A thought is not something said: the conversation does not hold it; what changed at the step is the thought alone.
    expect(await page.locator('.conversation').textContent()).not.toContain('Bairro Alto');
    const changed = page.locator('.changes .change-item');
    await expect.poll(() => changed.count(), EVENTUALLY).toBe(1);
    expect(await changed.getAttribute('data-kind')).toBe('thought');
    expect(await changed.textContent()).toContain("the agent thought 'Quiet means away from Bairro Alto.'");
    await shot('thoughts');
  });

  it('forks from a past step: writes a user message there, shows the plan, compensates, and the new named branch becomes the head', async () => {
    const id = `fork-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await step('POST', '/v1/sessions', { sessionId: id, title: 'Fork me' });
    const asked = (await step('POST', `${s}/messages`, { role: 'user', content: 'A weekend in Lisbon' })).version as number;
    await step('POST', `${s}/tool-calls`, { toolCallId: 'h1', tool: 'book_hotels', input: { city: 'Lisbon' } });
    const booked = (await (
      await fetch(`${travel.url}/hotels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"city":"Lisbon"}' })
    ).json()) as {
      bookingId: string;
    };
    await step('POST', `${s}/tool-calls/h1/succeed`, { output: booked });
    const oldHead = (await step('POST', `${s}/messages`, { role: 'agent', content: 'Booked Alfama Inn.' })).version as number;
    await open(id);

    // At the head there is nothing to fork from: the button says why.
    const forkAtHead = page.getByRole('button', { name: `Fork from step ${oldHead}…` });
    expect(await forkAtHead.isDisabled()).toBe(true);
    expect(await forkAtHead.getAttribute('title')).toContain('head');

    await page.locator(`.graph [data-version="${asked}"]`).click();
    await page.getByRole('button', { name: `Fork from step ${asked}…` }).click();
    const composer = page.getByRole('dialog', { name: `Fork from step ${asked}` });
    expect(await composer.getByRole('button', { name: 'Show the plan' }).isDisabled()).toBe(true);
    await composer.getByRole('textbox', { name: 'Message' }).fill('Porto instead, please');
    await composer.getByRole('textbox', { name: /Branch name/ }).fill('Porto');
    await shot('fork-composer', false);
    await composer.getByRole('button', { name: 'Show the plan' }).click();

    const plan = page.getByRole('dialog', { name: `Fork from step ${asked} as “Porto”` });
    await plan.locator('.plan-item[data-call="h1"]').waitFor();
    expect(await plan.locator('.plan-item[data-call="h1"]').textContent()).toContain('Undo');
    expect(travel.bookings.get(booked.bookingId)!.status).toBe('booked'); // nothing moves before Confirm
    await shot('fork-plan', false);
    await plan.getByRole('button', { name: /Confirm and undo 1 effect/ }).click();

    await expect.poll(() => travel.bookings.get(booked.bookingId)!.status, EVENTUALLY).toBe('cancelled');
    const branches = page.getByLabel('Branch', { exact: true }).locator('option');
    await expect.poll(() => branches.count(), EVENTUALLY).toBe(2);
    await expect.poll(async () => (await branches.allTextContents()).find((o) => o.includes('head')) ?? '', EVENTUALLY).toMatch(/^Porto · /);
    const state = await step('GET', s);
    expect(state.conversation.turns.at(-1).messages.map((m: { content: string }) => m.content)).toEqual(['Porto instead, please']);
    await page.getByRole('heading', { name: `State at step ${state.head}` }).waitFor();
    await expect.poll(() => page.locator('.conversation').textContent(), EVENTUALLY).toContain('Porto instead, please');
    // The old branch is kept, readable.
    expect(await page.locator(`.graph [data-version="${oldHead}"]`).count()).toBe(1);
    await shot('fork-done');
  });

  it('approves and rejects proposed tool calls from the "waiting for you" queue, recorded with who and when', async () => {
    const id = `approve-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await step('PUT', '/v1/tools/charge_card', { kind: 'irreversible', approval: 'required' });
    await step('POST', '/v1/sessions', { sessionId: id, title: 'Pay for the trip' });
    await step('POST', `${s}/messages`, { role: 'user', content: 'Pay the deposit and the tour' });
    await step('POST', `${s}/proposals`, { toolCallId: 'deposit', tool: 'charge_card', input: { amount: 50 } });
    await step('POST', `${s}/proposals`, { toolCallId: 'tour', tool: 'charge_card', input: { amount: 900 } });
    await open(id);

    const queue = page.getByRole('region', { name: /Waiting for you/ });
    await queue.getByRole('list', { name: 'Tool calls waiting for approval' }).waitFor();
    expect(await queue.locator('.proposal').count()).toBe(2);
    expect(await queue.locator('.proposal[data-call="tour"]').textContent()).toContain('900');
    // Rejecting needs a reason, said before anyone clicks.
    const reject = queue.getByRole('button', { name: 'Reject charge_card (tour)' });
    expect(await reject.isDisabled()).toBe(true);
    await shot('approvals-queue');

    await queue.getByRole('button', { name: 'Approve charge_card (deposit)' }).click();
    // An irreversible charge asks once more, naming what it will do.
    await queue
      .getByRole('group', { name: 'Confirm approval of charge_card (deposit)' })
      .getByRole('button', { name: 'Yes, run charge_card with amount 50' })
      .click();
    await queue.getByRole('textbox', { name: 'Reason to reject charge_card (tour)' }).fill('Too expensive: find a cheaper tour');
    await reject.click();
    await expect.poll(() => queue.locator('.proposal').count(), EVENTUALLY).toBe(0);
    expect(await queue.textContent()).toContain('No tool call is waiting for approval.');

    const proposals = (await step('GET', s)).proposals as { toolCallId: string; status: string; decidedBy: string; decidedAt: string; note: string | null }[];
    expect(proposals.map((p) => [p.toolCallId, p.status, p.note])).toEqual([
      ['deposit', 'approved', null],
      ['tour', 'rejected', 'Too expensive: find a cheaper tour'],
    ]);
    for (const p of proposals) {
      expect(p.decidedBy.length).toBeGreaterThan(0);
      expect(Date.parse(p.decidedAt)).toBeGreaterThan(Date.now() - 120_000);
    }
    await queue.getByText('Decided (2)').click();
    expect(await queue.locator('.decided').textContent()).toContain('rejected by');
    // The agent may now start the approved call, and only that one.
    await step('POST', `${s}/tool-calls`, { toolCallId: 'deposit', tool: 'charge_card', input: { amount: 50 } });
    expect((await http('POST', `${s}/tool-calls`, { toolCallId: 'tour', tool: 'charge_card', input: { amount: 900 } })).status).toBe(409);
    await shot('approvals-decided');
  });
});
