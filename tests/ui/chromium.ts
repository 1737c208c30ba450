// Headless Chromium for the UI test and the benches: one set of flags, the page's errors shown.

import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Launches Chromium with its profile in `userDir` (local storage outlives the run when the
 *  folder is kept), a page of `width`×800. */
export async function launchChromium(
  userDir: string,
  executablePath: string,
  width: number,
): Promise<{ browser: BrowserContext; page: Page }> {
  const browser = await chromium.launchPersistentContext(userDir, {
    executablePath,
    headless: true,
    viewport: { width, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.on("pageerror", (err) => console.error(`page error: ${err.message}`));
  return { browser, page };
}
