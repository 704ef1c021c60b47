/**
 * One person on every device, as a person does it in the browser: Chromium's virtual authenticator
 * (CDP `WebAuthn`) in browser contexts of their own, each a device. A passkey made on the laptop is
 * copied to the phone's authenticator, as a synced passkey is; a third device is linked by a code.
 *
 * The tests run in order over one server of their own (a fresh database: the first passkey person
 * is its owner, and beside Sage a bot `for: people`), each going on from where the last left the
 * devices, as one person's day would.
 * Pages are opened on `localhost`: WebAuthn refuses an address as the site's name.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, CDPSession, Page } from '@playwright/test';
import { EXPORT_FILE_NAME } from '../../common/people';
import type { ConfabServer } from './helpers/confabServer';
import { FakeSpeech } from './page/fakeRecogniser';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, orb, said, stopSpeaking, test } from './page/fixtures';
import { settled } from './page/layout';
import { TEST_BOTS_DIR, startOwnServer } from './page/ownServer';

test.describe.configure({ mode: 'serial', timeout: PAGE_TEST_TIMEOUT_MS });

/** A device: a browser context with its page, the fake recogniser, and a virtual authenticator. */
interface Device {
  context: BrowserContext;
  page: Page;
  speech: FakeSpeech;
  cdp: CDPSession;
  authenticatorId: string;
  errors: string[];
}

const LINE = 'How do I bake bread?';

let server: ConfabServer;
let origin: string;
let botsDir: string;
const devices: Device[] = [];

async function newDevice(browser: Browser): Promise<Device> {
  const context = await browser.newContext({ baseURL: origin });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const speech = await FakeSpeech.install(page, { refused: false });
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  const device = { context, page, speech, cdp, authenticatorId, errors };
  devices.push(device);
  return device;
}

/**
 * Copies `from`'s passkeys to `to`'s authenticator, as a passkey manager syncs them. Each copy
 * counts its signatures on from further on, since the server takes a counter that goes back for a
 * cloned key (a synced passkey's own counter stays at zero, which the virtual one cannot).
 */
async function syncPasskeys(from: Device, to: Device): Promise<void> {
  const { credentials } = await from.cdp.send('WebAuthn.getCredentials', { authenticatorId: from.authenticatorId });
  expect(credentials.length).toBeGreaterThan(0);
  for (const credential of credentials) {
    await to.cdp.send('WebAuthn.addCredential', { authenticatorId: to.authenticatorId, credential: { ...credential, signCount: credential.signCount + 1000 * devices.length } });
  }
}

/** Opens the drawer's "You" on a voice page, and waits until it knows who this device is. */
async function openYou(page: Page): Promise<void> {
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('show-you').click();
  await expect(page.getByTestId('you')).toHaveAttribute('data-kind', /^(cookie|passkey)$/);
}

/** Does `act`, which loads the voice page again (signed in, forgotten), and waits until it is ready to talk. */
async function reopensAfter(page: Page, act: () => Promise<void>): Promise<void> {
  const loaded = page.waitForEvent('load');
  await act();
  await loaded;
  await expect(page.getByTestId('mic')).toBeVisible({ timeout: 30_000 });
}

async function closeDrawer(page: Page): Promise<void> {
  await page.getByTestId('drawer').getByRole('button', { name: 'Close', exact: true }).click();
  await expect(page.getByTestId('drawer')).toBeHidden();
}

/** The titles of the conversations the drawer lists. */
async function conversations(page: Page): Promise<string[]> {
  await page.getByTestId('open-drawer').click();
  const titles = await page.getByTestId('threads').locator('.title').allTextContents();
  await closeDrawer(page);
  return titles;
}

async function type(page: Page, text: string): Promise<void> {
  await page.getByTestId('typing').fill(text);
  await page.getByTestId('send').click();
  await expect(said(page, 'assistant').last()).toContainText(`I heard you say: "${text}"`, { timeout: ANSWER_PATIENCE_MS });
}

/** What the server says in English for `key` of its `## <section>` words (words/en.md). */
async function serverWord(key: string, section = 'devices'): Promise<string> {
  const words = await readFile(new URL('../../words/en.md', import.meta.url), 'utf8');
  const from = words.slice(words.indexOf(`\n## ${section}\n`));
  const said = new RegExp(`^- ${key}: (.*)$`, 'm').exec(from)?.[1];
  expect(said, key).toBeDefined();
  return said ?? '';
}

/** axe's serious and critical violations on the page once it is still, each as "rule: the elements it names". */
async function seriousViolations(page: Page): Promise<string[]> {
  await settled(page);
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const rows = async (table: string) => server.db.readAsServer(async (reader) => (await reader.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]?.n);

test.beforeAll(async () => {
  botsDir = await mkdtemp(join(tmpdir(), 'confab-passkeys-'));
  const sage = await readFile(join(TEST_BOTS_DIR, 'demo.md'), 'utf8');
  await writeFile(join(botsDir, 'demo.md'), sage);
  await writeFile(join(botsDir, 'private.md'), sage.replace('name: Sage', 'name: Private\nfor: people'));
  server = await startOwnServer({ botsDir });
  const url = new URL(server.url);
  url.hostname = 'localhost';
  origin = url.origin;
});

test.afterAll(async () => {
  for (const device of devices) await device.context.close();
  await server.close();
  await rm(botsDir, { recursive: true, force: true });
});

test.afterEach(() => {
  for (const device of devices) expect(device.errors).toEqual([]);
});

test('a passkey made on the laptop signs the phone in as the same person, with the same conversations', async ({ browser }) => {
  const laptop = await newDevice(browser);
  await openVoice(laptop.page);
  await stopSpeaking(laptop.page);
  await type(laptop.page, LINE);

  await openYou(laptop.page);
  await expect(laptop.page.getByTestId('keep-on-devices')).toContainText('A passkey makes you the same person on every device');
  expect(await seriousViolations(laptop.page)).toEqual([]);
  await laptop.page.getByTestId('keep-passkey').click();
  await expect(laptop.page.getByTestId('kept')).toBeVisible();
  await expect(laptop.page.getByTestId('owner')).toHaveText('You own this Confab: you were the first to keep it on your devices.');
  await expect(laptop.page.getByTestId('device')).toHaveCount(1);
  await expect(laptop.page.getByTestId('device')).toContainText('this device');
  await closeDrawer(laptop.page);

  const phone = await newDevice(browser);
  await syncPasskeys(laptop, phone);
  await openVoice(phone.page);
  expect(await conversations(phone.page)).toEqual([]);
  await openYou(phone.page);
  // Signed in, the page opens again as the person: their conversation is in the drawer.
  await reopensAfter(phone.page, () => phone.page.getByTestId('sign-in-passkey').click());
  await expect.poll(() => conversations(phone.page)).toEqual([LINE]);
  await openYou(phone.page);
  await expect(phone.page.getByTestId('you')).toHaveAttribute('data-kind', 'passkey');
  await expect(phone.page.getByTestId('device')).toHaveCount(2);
  await expect(phone.page.locator('[data-testid="device"][data-this-device="true"]')).toHaveCount(1);
  await closeDrawer(phone.page);
});

test('the active page hands over between the passkey person’s two devices', async () => {
  const [laptop, phone] = devices as [Device, Device];
  await laptop.page.getByTestId('start-listening').click();
  await expect(orb(laptop.page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
  await expect(phone.page.getByTestId('active-elsewhere')).toContainText('Listening on another device');

  await stopSpeaking(phone.page);
  await type(phone.page, 'From my phone.');
  await expect(laptop.page.getByTestId('active-elsewhere')).toContainText('Listening on another device');
  await expect.poll(() => laptop.speech.running()).toBe(false);
  await expect(phone.page.getByTestId('active-elsewhere')).toHaveCount(0);
  await expect(said(laptop.page, 'assistant').last()).toContainText('I heard you say: "From my phone."', { timeout: ANSWER_PATIENCE_MS });
});

test('a device linked by a code from the passkey person’s laptop is the same person', async ({ browser }) => {
  const [laptop] = devices as [Device];
  await openYou(laptop.page);
  await laptop.page.getByTestId('make-link-code').click();
  const code = (await laptop.page.getByTestId('link-code').textContent())?.trim() ?? '';
  expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  await expect(laptop.page.getByTestId('link-qr')).toBeVisible();
  await expect(laptop.page.getByTestId('link-time-left')).toContainText(/Works once, for [45]:\d\d more\./);
  expect(await seriousViolations(laptop.page)).toEqual([]);
  await closeDrawer(laptop.page);

  const tablet = await newDevice(browser);
  await tablet.page.goto(`/link#${code}`);
  await expect(tablet.page.getByTestId('link-page-code')).toHaveValue(code);
  await tablet.page.getByTestId('link-page-use').click();
  await expect(tablet.page.getByTestId('linked')).toHaveText('This device is you now.');
  // It is offered a passkey of its own.
  await expect(tablet.page.getByTestId('keep-passkey')).toBeVisible();
  await openVoice(tablet.page);
  await expect.poll(() => conversations(tablet.page)).toContain(LINE);
});

test('a device removed from the passkey person’s Devices is signed out at its next request, and says so', async () => {
  const [laptop, , tablet] = devices as [Device, Device, Device];
  await openYou(laptop.page);
  const linked = laptop.page.getByTestId('device').filter({ hasText: 'linked with a code' });
  await expect(linked).toHaveCount(1);
  await linked.getByRole('button', { name: /^Remove / }).click();
  await expect(linked).toHaveCount(0);
  await expect(laptop.page.getByTestId('device')).toHaveCount(2);
  await closeDrawer(laptop.page);

  await tablet.page.reload();
  await expect(tablet.page.getByTestId('signed-out')).toContainText('This device was signed out from another of yours');
  await expect(tablet.page.getByTestId('mic')).toBeVisible({ timeout: 30_000 });
  expect(await conversations(tablet.page)).toEqual([]);
});

test('a replayed passkey assertion and an expired challenge are refused with a sentence', async ({ browser }) => {
  const [, phone] = devices as [Device, Device];
  const other = await newDevice(browser);
  await syncPasskeys(phone, other);
  await openVoice(other.page);
  await openYou(other.page);

  // The ceremony outlives its challenge: the server has let it lapse by the time the answer comes.
  await other.page.route('**/api/passkeys/sign-in/verify', async (route) => {
    await server.db.asServer((tx) => tx.query("update webauthn_challenges set expires_at = now() - interval '1 second'"));
    await route.continue();
  });
  await other.page.getByTestId('sign-in-passkey').click();
  await expect(other.page.getByTestId('keep-on-devices').getByRole('alert')).toHaveText(await serverWord('challenge-expired'));
  await other.page.unrouteAll();

  let assertion = '';
  await other.page.route('**/api/passkeys/sign-in/verify', async (route) => {
    assertion = route.request().postData() ?? '';
    await route.continue();
  });
  await reopensAfter(other.page, () => other.page.getByTestId('sign-in-passkey').click());
  await other.page.unrouteAll();
  expect(assertion).not.toBe('');

  const replayed = await other.context.request.post('/api/passkeys/sign-in/verify', { data: JSON.parse(assertion) as unknown, headers: { origin } });
  expect(replayed.status()).toBe(400);
  expect(await replayed.json()).toEqual({ error: await serverWord('challenge-used') });
});

test('What it has cost, Take it with you, and Forget me, after which the passkey person is gone', async () => {
  const [laptop, phone] = devices as [Device, Device];
  await openYou(laptop.page);
  const cost = laptop.page.getByTestId('cost');
  await expect(cost.getByRole('heading', { name: 'What it has cost' })).toBeVisible();
  await expect(cost.getByTestId('cost-bot').filter({ hasText: 'Sage' })).toHaveCount(1);

  const downloading = laptop.page.waitForEvent('download');
  await laptop.page.getByTestId('download-everything').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(EXPORT_FILE_NAME);
  expect(await readFile(await download.path(), 'utf8')).toContain(LINE);

  await laptop.page.getByTestId('forget-me-start').click();
  await laptop.page.getByTestId('forget-typed').fill('Sage');
  expect(await seriousViolations(laptop.page)).toEqual([]);
  // The page starts over as a newcomer: nothing of the person is left here or on the server.
  await reopensAfter(laptop.page, () => laptop.page.getByTestId('forget-me-for-good').click());
  expect(await conversations(laptop.page)).toEqual([]);
  await openYou(laptop.page);
  await expect(laptop.page.getByTestId('you')).toHaveAttribute('data-kind', 'cookie');
  for (const table of ['people', 'passkeys', 'device_sessions', 'link_codes']) expect(await rows(table), table).toBe(0);

  await phone.page.reload();
  await expect(phone.page.getByTestId('signed-out')).toBeVisible();
});

test('a bot for people is one sentence to a cookie person and not listed for them, until a passkey admits them', async () => {
  const [laptop] = devices as [Device];
  await laptop.page.goto('/');
  await expect(laptop.page.getByTestId('bots')).toContainText('Talk to Sage');
  await expect(laptop.page.getByTestId('bots')).not.toContainText('Private');

  await laptop.page.goto('/voice/private');
  await expect(laptop.page.getByTestId('page-problem')).toHaveText(await serverWord('for-people', 'audience'));
  await expect(orb(laptop.page)).toHaveCount(0);
  await expect(laptop.page.getByTestId('transcript')).toHaveCount(0);
  await reopensAfter(laptop.page, () => laptop.page.getByTestId('keep-passkey').click());
  await laptop.page.goto('/');
  await expect(laptop.page.getByTestId('bots')).toContainText('Talk to Private');
});
