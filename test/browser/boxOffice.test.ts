import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent, done, statuses } from '../support/events.js';
import { eventually, useServerWithCompany } from '../support/harness.js';

// The box-office page (GET /box-office) in a real browser: Debian's chromium, driven by
// playwright-core through its executable path (.ci/run installs it when missing). Every
// wait is for a condition on the page or the API, never a fixed time. Screenshots go to
// test-artifacts/ (ignored by git).

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = 'test-artifacts';

describe('box office in a browser', () => {
  const ctx = useServerWithCompany('shared');
  let browser: Browser;
  let page: Page;
  let event = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    event = await createEvent(ctx.api, chart.key);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const seat = (label: string) => page.locator(`[data-label="${label}"]`);
  /** A new page with the workspace's secret key entered and the test's event picked. */
  async function openEvent(): Promise<void> {
    page = await browser.newPage();
    await page.goto(`${ctx.server.url}/box-office`);
    await page.fill('#key', ctx.company.workspace.secretKey);
    await page.click('#key-form button');
    await page.selectOption('#event', event);
  }

  it('shows the API\'s words for a wrong key', async () => {
    page = await browser.newPage();
    await page.goto(`${ctx.server.url}/box-office`);
    await page.fill('#key', '00000000-0000-4000-8000-000000000000');
    await page.click('#key-form button');
    const expected = (await fetch(`${ctx.server.url}/events`, { headers: { authorization: 'Basic ' + Buffer.from('00000000-0000-4000-8000-000000000000:').toString('base64') } }).then((r) => r.json())) as { messages: string[] };
    await expect.poll(() => page.textContent('#error')).toBe(expected.messages.join('; '));
    await page.screenshot({ path: `${ARTIFACTS}/box-office-wrong-key.png` });
    await page.close();
  });

  it('colours a seat booked through the API within a second, books two clicked seats, and books one chosen with the keyboard', async () => {
    await openEvent();
    await expect.poll(() => seat('A-1').getAttribute('data-status')).toBe('free');
    // The stream is open once the page has applied its snapshot (seq known): wait for that,
    // so the booking below is timed from its answer, not from the page's start.
    await page.locator('body[data-seq]').waitFor({ timeout: 5_000 });
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const answered = Date.now();
    await seat('A-1').and(page.locator('[data-status="booked"]')).waitFor({ timeout: 5_000 });
    expect(Date.now() - answered).toBeLessThan(1_000);

    await seat('A-2').click();
    await seat('A-3').click();
    await expect.poll(() => page.textContent('#selected-count')).toBe('2');
    await page.click('#book');
    await eventually(async () => JSON.stringify(await statuses(ctx.api, event, ['A-2', 'A-3'])) === JSON.stringify({ 'A-2': 'booked', 'A-3': 'booked' }), 5_000);
    await seat('A-3').and(page.locator('[data-status="booked"]')).waitFor({ timeout: 5_000 });

    await seat('A-4').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => seat('A-4').getAttribute('aria-pressed')).toBe('true');
    await page.focus('#book');
    await page.keyboard.press('Enter');
    await eventually(async () => (await statuses(ctx.api, event, ['A-4']))['A-4'] === 'booked', 5_000);
    await expect.poll(() => seat('A-4').getAttribute('aria-label')).toBe('A-4: booked');
    await expect.poll(() => page.textContent('#by-status')).toContain('booked4');
    await page.screenshot({ path: `${ARTIFACTS}/box-office-booked.png` });

    // A refusal shows the API's message: booking a booked seat.
    await seat('A-1').click();
    await page.click('#book');
    await expect.poll(() => page.textContent('#error')).toMatch(/A-1/);
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'booked' });
    await page.close();
  });

  it('greys out a seat marked not for sale through the API, and shows it for sale again', async () => {
    await openEvent();
    await page.locator('body[data-seq]').waitFor({ timeout: 5_000 });
    expect((await ctx.api.post(`/events/${event}/actions/mark-as-not-for-sale`, { objects: ['B-1'] })).status).toBe(200);
    await seat('B-1').and(page.locator('[data-for-sale="false"]')).waitFor({ timeout: 5_000 });
    await expect.poll(() => seat('B-1').getAttribute('aria-label')).toBe('B-1: free, not for sale');
    await expect.poll(() => page.textContent('#by-status')).toContain('not for sale1');
    await page.screenshot({ path: `${ARTIFACTS}/box-office-not-for-sale.png` });
    expect((await ctx.api.post(`/events/${event}/actions/mark-everything-as-for-sale`, {})).status).toBe(204);
    await seat('B-1').and(page.locator('[data-for-sale="true"]')).waitFor({ timeout: 5_000 });
    await page.close();
  });
});
