/**
 * `npm run screenshots`: the README's pictures of the page, taken from the real built page in
 * Debian's Chromium and written to docs/screenshots/.
 *
 * The page is `vite build --mode e2e` (the product page, with a worker that takes the tiny stand-in
 * voice graphs, which sound like noise but make the page speak as it does with the real voice); the
 * real server composed in-process with the shipped bots and no model provider, so the scripted
 * stand-in answers, as on a fresh clone; the browser tests' fake recogniser hears what the script
 * says. Each picture waits for a condition on the page (a state of the orb, a line in the
 * transcript, the drawer at rest), never for a fixed time. The orb moves, so it is caught at some
 * moment of its motion; everything else is the same every run.
 *
 * `npm run screenshots -- <part> …` takes only those parts (`conversation`, `typed`, `phone`,
 * `long-work`, `voice-away`, `sign-in`, `people`, `choices`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from '@playwright/test';
import { loadBots } from '../../server/bots';
import { FakeSpeech } from '../e2e/page/fakeRecogniser';
import { NAME_HELPER, ROOT, benchFolder, buildPage, launchChromium, startBenchServer, tinyVoice } from '../helpers/benchPage';
import type { BenchServer } from '../helpers/benchPage';
import { SupabaseAuthStandIn } from '../helpers/supabaseAuthStandIn';

const OUT = join(ROOT, 'docs', 'screenshots');
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const PATIENCE_MS = 90_000;
/** A JWT secret for the Supabase sign-in picture's stand-in project: a picture, not a secret. */
const PICTURE_JWT_SECRET = 'screenshots-only-jwt-secret-of-32-characters-or-more';

/** Waits until nothing on the page is mid-transition, so a picture shows where things come to rest. */
async function still(page: Page): Promise<void> {
  // A Vue transition's element is inserted a frame before its animation starts: its class says so.
  await page.waitForFunction(() =>
    document.querySelector('[class*="-enter-"], [class*="-leave-"]') === null &&
    document.getAnimations().every((animation) => animation.playState !== 'running' || animation.effect?.getComputedTiming().iterations === Number.POSITIVE_INFINITY),
  );
  // The transcript scrolls smoothly to its newest line: wait until it has arrived.
  await page.waitForFunction(() => {
    const log = document.querySelector('[data-testid="transcript"]');
    return log === null || Math.abs(log.scrollHeight - log.clientHeight - log.scrollTop) < 2;
  });
}

async function shoot(page: Page, name: string): Promise<void> {
  await still(page);
  const path = join(OUT, `${name}.png`);
  await page.screenshot({ path });
  console.error(`wrote docs/screenshots/${name}.png`);
}

const orbIs = (page: Page, states: readonly string[]) =>
  page.waitForFunction((wanted) => wanted.includes(document.querySelector('[data-testid="orb"]')?.getAttribute('data-state') ?? ''), states, { timeout: PATIENCE_MS });

/** A page of its own person (a context each), with the fake recogniser unless `recogniser` is false. */
async function openPage(browser: Browser, url: string, options: { viewport?: { width: number; height: number }; recogniser?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; speech: FakeSpeech }> {
  const context = await browser.newContext({ viewport: options.viewport ?? LAPTOP });
  const page = await context.newPage();
  await page.addInitScript(NAME_HELPER);
  let speech: FakeSpeech;
  if (options.recogniser === false) {
    await FakeSpeech.remove(page);
    speech = new FakeSpeech(page);
  } else {
    speech = await FakeSpeech.install(page, { refused: false });
  }
  await page.goto(url);
  await page.getByTestId('mic').waitFor({ timeout: PATIENCE_MS });
  return { context, page, speech };
}

/** Says `question`, and waits until it has been answered and the turn is the person's again. */
async function ask(page: Page, speech: FakeSpeech, question: string, answer: string | RegExp): Promise<void> {
  await speech.final(question);
  await page.getByTestId('transcript').getByText(answer).last().waitFor({ timeout: PATIENCE_MS });
  await orbIs(page, ['listening', 'hearing']);
}

async function typeAndWait(page: Page, text: string): Promise<void> {
  await page.getByTestId('typing').fill(text);
  await page.getByTestId('send').click();
  await page.getByTestId('transcript').getByText(`I heard you say: "${text}"`).waitFor({ timeout: PATIENCE_MS });
  await orbIs(page, ['listening', 'hearing', 'muted']);
}

/** The voice page as a person meets it, then talks, acts, looks back, and sets it up. */
async function conversation(browser: Browser, server: BenchServer): Promise<void> {
  const { context, page, speech } = await openPage(browser, `${server.url}/voice/demo`);
  await page.getByTestId('transcript').getByText("Hello, I'm Sage").waitFor();
  await orbIs(page, ['muted']);
  await shoot(page, 'first-visit');

  await page.getByTestId('start-listening').click();
  await orbIs(page, ['listening']);
  await speech.listening();
  await shoot(page, 'listening');

  await speech.interim('What is the weather like on');
  await orbIs(page, ['hearing']);
  await shoot(page, 'live-line');
  await speech.final('What is the weather like on Mars today?');
  await orbIs(page, ['speaking']);
  await page.getByTestId('transcript').getByText('Nothing is being bought').waitFor({ timeout: PATIENCE_MS });
  await shoot(page, 'speaking');
  await orbIs(page, ['listening', 'hearing']);

  await ask(page, speech, 'Add rice and beans to my shopping list.', /2 things on your shopping list/);
  await speech.final('Clear my shopping list.');
  await page.getByRole('button', { name: 'Yes, do it' }).waitFor({ timeout: PATIENCE_MS });
  await orbIs(page, ['listening', 'hearing']);
  await shoot(page, 'confirm');
  await speech.final('No.');
  await page.getByTestId('transcript').getByText("Okay, I've left it as it was.").waitFor({ timeout: PATIENCE_MS });
  await orbIs(page, ['listening', 'hearing']);

  // A second conversation, so the drawer has two.
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('new-conversation').click();
  await page.getByTestId('transcript').getByText("Hello, I'm Sage").waitFor();
  await orbIs(page, ['listening', 'hearing']);
  await ask(page, speech, 'How do I keep basil alive indoors?', /keep basil alive indoors/);
  await ask(page, speech, 'My sister Ana is visiting on Friday.', /Ana is visiting on Friday/);
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('thread').nth(1).waitFor();
  await shoot(page, 'drawer');
  await page.getByTestId('show-memories').click();
  await page.getByTestId('memories').getByText('Ana is visiting').waitFor({ timeout: PATIENCE_MS });
  await shoot(page, 'memories');
  await page.getByRole('button', { name: 'Close' }).click();

  await page.getByTestId('open-settings').click();
  await page.getByTestId('settings').waitFor();
  await shoot(page, 'settings');
  await page.getByRole('button', { name: 'Close settings' }).click();

  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.locator('[data-testid="orb"][data-motion="still"]').waitFor();
  await speech.final('Tell me a short story about the sea.');
  await orbIs(page, ['speaking']);
  await shoot(page, 'reduced-motion');
  await context.close();
}

/** A browser that cannot listen (Firefox): the conversation is typed. */
async function typed(browser: Browser, server: BenchServer): Promise<void> {
  const { context, page } = await openPage(browser, `${server.url}/voice/demo`, { recogniser: false });
  await typeAndWait(page, 'Is anybody there?');
  await typeAndWait(page, 'What can you help me with?');
  await shoot(page, 'typed');
  await context.close();
}

/** A phone's width, partway through a conversation. */
async function phone(browser: Browser, server: BenchServer): Promise<void> {
  const { context, page, speech } = await openPage(browser, `${server.url}/voice/demo`, { viewport: PHONE });
  await page.getByTestId('start-listening').click();
  await orbIs(page, ['listening']);
  await ask(page, speech, 'What should I read on a long train ride?', /long train ride/);
  await speech.interim('And something shorter for the way');
  await orbIs(page, ['hearing']);
  await shoot(page, 'phone');
  await context.close();
}

/** Throws unless each of `what` is on screen and nothing covers its middle: a picture of buttons shows them. */
async function uncovered(page: Page, testId: string): Promise<void> {
  const hidden = await page.getByTestId(testId).evaluateAll((elements) =>
    elements.flatMap((element) => {
      const box = element.getBoundingClientRect();
      const inView = box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return inView && top !== null && element.contains(top) ? [] : [element.textContent.trim()];
    }),
  );
  if (hidden.length > 0) throw new Error(`Off screen or covered: ${hidden.join(', ')}`);
}

/** Choices to tap under an answer, offered and then taken, at the laptop's size and the phone's. */
async function choices(browser: Browser, server: BenchServer): Promise<void> {
  for (const [viewport, suffix] of [[LAPTOP, ''], [PHONE, '-phone']] as const) {
    const { context, page, speech } = await openPage(browser, `${server.url}/voice/demo`, { viewport });
    await page.getByTestId('start-listening').click();
    await orbIs(page, ['listening']);
    await speech.final('Add milk to my list.');
    await page.locator('[data-testid="choices"][data-open="true"]').waitFor({ timeout: PATIENCE_MS });
    await orbIs(page, ['listening', 'hearing']);
    await still(page);
    await uncovered(page, 'choice');
    await shoot(page, `choice-offered${suffix}`);
    await page.getByTestId('choice').filter({ hasText: 'Shopping' }).click();
    await page.getByTestId('transcript').getByText(/milk.*shopping list/).waitFor({ timeout: PATIENCE_MS });
    await orbIs(page, ['listening', 'hearing']);
    await still(page);
    await uncovered(page, 'choice');
    await shoot(page, `choice-taken${suffix}`);
    await context.close();
  }
}

/** Work that outlives a turn, at a phone's width: taken on, and what it came to (a short run's progress is withdrawn once it ends, unsaid). */
async function longWork(browser: Browser, server: BenchServer): Promise<void> {
  const { context, page, speech } = await openPage(browser, `${server.url}/voice/demo`, { viewport: PHONE });
  await page.getByTestId('start-listening').click();
  await orbIs(page, ['listening']);
  await ask(page, speech, 'Add milk and eggs to my shopping list.', /2 things on your shopping list/);
  await ask(page, speech, 'Go through my shopping list and remind me about each thing in one minute.', "I'm on it — I'll tell you when it's done.");
  await page.getByTestId('transcript').getByText(/remind you.*milk.*eggs/i).waitFor({ timeout: PATIENCE_MS });
  await orbIs(page, ['listening', 'hearing']);
  await shoot(page, 'long-work');
  await context.close();
}

/** The model hub out of reach: the voice cannot start; one line says so, with Try again. */
async function voiceAway(browser: Browser, server: BenchServer): Promise<void> {
  const context = await browser.newContext({ viewport: LAPTOP });
  const page = await context.newPage();
  await page.addInitScript(NAME_HELPER);
  await FakeSpeech.install(page, { refused: false });
  await page.route('**/models/**', (route) => route.abort('internetdisconnected'));
  await page.goto(`${server.url}/voice/demo`);
  await page.getByTestId('retry-voice').waitFor({ timeout: PATIENCE_MS });
  await typeAndWait(page, 'Can you hear me?');
  await shoot(page, 'voice-could-not-start');
  await context.close();
}

/** Supabase mode: the page asks the person to sign in before anything else. */
async function signIn(browser: Browser, dist: string, models: string): Promise<void> {
  const project = await SupabaseAuthStandIn.start({ jwtSecret: PICTURE_JWT_SECRET });
  const server = await startBenchServer({ dist, models, bots: await loadBots(join(ROOT, 'bots')), supabase: { url: project.url, anonKey: project.anonKey, jwtSecret: PICTURE_JWT_SECRET } });
  try {
    const context = await browser.newContext({ viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/voice/demo`);
    await page.getByTestId('sign-in').waitFor({ timeout: PATIENCE_MS });
    await shoot(page, 'sign-in');
    await context.close();
  } finally {
    await server.close();
    await project.close();
  }
}

/** A virtual authenticator in `page` (Chromium's, over CDP), as a device's platform authenticator. */
async function authenticator(context: BrowserContext, page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, id: authenticatorId };
}

/** Shoots the drawer with `part` of "You" scrolled to its top (null: the drawer's own top), at the laptop's size and the phone's. */
async function shootPart(page: Page, part: string | null, name: string): Promise<void> {
  for (const [size, suffix] of [[LAPTOP, ''], [PHONE, '-phone']] as const) {
    await page.setViewportSize(size);
    await page.getByTestId(part ?? 'drawer').evaluate((element, top) => {
      if (top) element.scrollTop = 0;
      else element.scrollIntoView({ block: 'start' });
    }, part === null);
    await shoot(page, `${name}${suffix}`);
  }
  await page.setViewportSize(LAPTOP);
}

/**
 * "You", in the drawer, on localhost (WebAuthn refuses an address): a newcomer offered to keep
 * Confab on their devices; the owner's Devices with a phone signed in by the synced passkey and a
 * code to link another; what two answers cost; and Forget me, asked the second time.
 */
async function people(browser: Browser, server: BenchServer): Promise<void> {
  const url = new URL(`${server.url}/voice/demo`);
  url.hostname = 'localhost';
  const { context, page } = await openPage(browser, url.href);
  const laptop = await authenticator(context, page);
  await typeAndWait(page, 'How do I keep basil alive indoors?');
  await typeAndWait(page, 'And how often should I water it?');
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('show-you').click();
  await page.getByTestId('keep-on-devices').waitFor();
  await shootPart(page, null, 'keep-on-devices');

  await page.getByTestId('keep-passkey').click();
  await page.getByTestId('devices').waitFor();
  const iphone = await browser.newContext({ viewport: PHONE, userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1' });
  const phonePage = await iphone.newPage();
  const phone = await authenticator(iphone, phonePage);
  const { credentials } = await laptop.cdp.send('WebAuthn.getCredentials', { authenticatorId: laptop.id });
  for (const credential of credentials) await phone.cdp.send('WebAuthn.addCredential', { authenticatorId: phone.id, credential: { ...credential, signCount: credential.signCount + 1000 } });
  await phonePage.goto(url.href);
  await phonePage.getByTestId('open-drawer').click();
  await phonePage.getByTestId('show-you').click();
  const loaded = phonePage.waitForEvent('load');
  await phonePage.getByTestId('sign-in-passkey').click();
  await loaded;
  await iphone.close();

  // Devices lists what it had when the view opened: opened again, it has the phone.
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('show-you').click();
  await page.getByTestId('device').nth(1).waitFor();
  await page.getByTestId('make-link-code').click();
  await page.getByTestId('link-qr').waitFor();
  await shootPart(page, null, 'devices');

  await page.getByTestId('cost-bot').waitFor();
  await shootPart(page, 'cost', 'cost');

  await page.getByTestId('forget-me-start').click();
  await page.getByTestId('forget-typed').fill('Sage');
  await shootPart(page, 'forget-me', 'forget-me');
  await context.close();
}

/** The parts asked for on the command line, or all of them. */
const asked = process.argv.slice(2);
const wanted = (part: string) => asked.length === 0 || asked.includes(part);

const work = benchFolder('screenshots');
try {
  mkdirSync(OUT, { recursive: true });
  const dist = join(work.path, 'dist');
  buildPage(dist, 'e2e');
  const models = tinyVoice(join(work.path, 'models'));
  const server = await startBenchServer({ dist, models, bots: await loadBots(join(ROOT, 'bots')) });
  const browser = await launchChromium(join(work.path, 'mic'));
  try {
    if (wanted('conversation')) await conversation(browser, server);
    if (wanted('typed')) await typed(browser, server);
    if (wanted('phone')) await phone(browser, server);
    if (wanted('long-work')) await longWork(browser, server);
    if (wanted('voice-away')) await voiceAway(browser, server);
    if (wanted('sign-in')) await signIn(browser, dist, models);
    if (wanted('people')) await people(browser, server);
    if (wanted('choices')) await choices(browser, server);
  } finally {
    await browser.close();
    await server.close();
  }
} finally {
  work.dispose();
}
