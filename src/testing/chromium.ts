// A headless Chromium for the browser tests (issue 7): Debian's `chromium` package driven by
// playwright-core, installed by the test setup like etcd when missing. The flags keep a test browser
// quiet and self-contained on a shared CI machine: no sandbox (root in a container), no GPU, no
// background fetches, no first-run or default-browser prompts.
import { type Browser, chromium } from 'playwright-core';
import { type DebianProgram, ensureProgram, findProgram } from './debian-package.js';

/** Set this to a Chromium (or Chrome) binary to skip the search. */
export const CHROMIUM_BINARY_ENV = 'LOCKSTEP_CHROMIUM_BINARY';

const CHROMIUM: DebianProgram = {
  name: 'chromium',
  debianPackage: 'chromium',
  commands: ['chromium', 'chromium-browser'],
  // Debian's /usr/bin/chromium is a shell wrapper; the binary behind it starts without the wrapper's checks.
  preferredPaths: ['/usr/lib/chromium/chromium'],
  overrideEnv: CHROMIUM_BINARY_ENV,
};

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--mute-audio',
] as const;

/** A setup hook that may install Chromium (apt-get on a fresh machine) needs longer than vitest's default. */
export const BROWSER_SETUP_TIMEOUT_MS = 10 * 60_000;

export function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return findProgram(CHROMIUM, env);
}

/** Launches headless Chromium, installing Debian's package first when it is missing and this process is root. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = await ensureProgram(CHROMIUM);
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS] });
}
