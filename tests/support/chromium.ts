/**
 * Debian's chromium for the browser tests (the HTML report, bas view), through playwright-core:
 * where it lives, whether it is installed, and one headless launch with nothing in the
 * background that could reach the network.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Says once, for `what`, that its browser tests are skipped when chromium is missing. */
export function noticeIfMissing(what: string): void {
  if (!hasChromium) console.warn(`NOTICE: ${CHROMIUM} not found: ${what} are skipped (apt-get install chromium)`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
