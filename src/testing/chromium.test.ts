import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { BROWSER_SETUP_TIMEOUT_MS, launchChromium } from './chromium.js';

describe('launchChromium', () => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, BROWSER_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });

  it('runs a page with scripts and workers, and makes no network request of its own', async () => {
    const page = await (browser as Browser).newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.setContent('<p id="out"></p><script>document.getElementById("out").textContent = String(6 * 7)</script>');
    expect(await page.textContent('#out')).toBe('42');
    // Evaluated in the page (a string: this file is typechecked without the DOM library).
    const fromWorker = await page.evaluate(`new Promise((resolve) => {
      const worker = new Worker(URL.createObjectURL(new Blob(['onmessage = (e) => postMessage(e.data * 2)'], { type: 'text/javascript' })));
      worker.onmessage = (event) => resolve(event.data);
      worker.postMessage(21);
    })`);
    expect(fromWorker).toBe(42);
    expect(requests.filter((url) => url.startsWith('http'))).toEqual([]);
  });
});
