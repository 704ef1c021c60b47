import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../server/bots';
import { ConfigError } from '../../server/config';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { RefusedError } from '../../server/db/errors';
import {
  bearerGrant,
  GRANT_SECRET_FILE,
  GRANT_TTL_MS,
  grantClaims,
  GrantRefused,
  loadGrantSecret,
  signGrant,
  verifyGrant,
} from '../../server/grants';
import type { GrantClaims } from '../../server/grants';
import { requestRefusal } from '../helpers/words';
import { DB_TEST_MS, OPENING_MS, startSocketPostgres } from './db/fixtures';
import type { SocketPostgres } from './db/fixtures';

const SECRET = new TextEncoder().encode('a-test-secret-of-more-than-thirty-two-characters');
const NOW = 1_750_000_000_000;
const CLAIMS: GrantClaims = grantClaims({ slug: 'demo', limits: structuredClone(DEFAULT_LIMITS) }, 'person-1', 'cookie', NOW);

const b64 = (text: string) => Buffer.from(text).toString('base64url');
/** A token signed properly over any payload text, to show shape checks hold even under a good MAC. */
const signedOver = (payload: string) => `${b64(payload)}.${createHmac('sha256', SECRET).update(b64(payload)).digest('base64url')}`;

function refusalOf(token: string, options: { bot?: string; nowMs: number } = { nowMs: NOW }, secret = SECRET): unknown {
  try {
    verifyGrant(secret, token, options);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('grants', () => {
  it('names one bot and one person, how they were known, with the bot’s ceilings, and dies thirty minutes on', () => {
    expect(GRANT_TTL_MS).toBe(30 * 60 * 1000);
    expect(CLAIMS).toEqual({ bot: 'demo', person: 'person-1', kind: 'cookie', limits: DEFAULT_LIMITS, expiresAt: NOW + GRANT_TTL_MS });
  });

  it('verifies a grant it signed, for its bot, until it expires', () => {
    const token = signGrant(SECRET, CLAIMS);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyGrant(SECRET, token, { nowMs: NOW })).toEqual(CLAIMS);
    expect(verifyGrant(SECRET, token, { bot: 'demo', nowMs: CLAIMS.expiresAt - 1 })).toEqual(CLAIMS);
  });

  it('gives the same refusal for a bad signature, a changed field, malformed input, expiry and another bot', () => {
    const token = signGrant(SECRET, CLAIMS);
    const [payload = '', signature = ''] = token.split('.');
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    const changed = (edit: Partial<GrantClaims>) => `${b64(JSON.stringify({ ...CLAIMS, ...edit }))}.${signature}`;
    const refusals = [
      refusalOf(`${payload}.${flipped}`),
      refusalOf(`${payload}.${signature.slice(0, 20)}`),
      refusalOf(token, { nowMs: NOW }, new TextEncoder().encode('another-secret-of-more-than-thirty-two-chars')),
      refusalOf(changed({ person: 'person-2' })),
      refusalOf(changed({ kind: 'passkey' })),
      refusalOf(changed({ bot: 'other' })),
      refusalOf(changed({ expiresAt: CLAIMS.expiresAt + GRANT_TTL_MS })),
      refusalOf(changed({ limits: { ...CLAIMS.limits, spend: 100 } })),
      refusalOf(''),
      refusalOf('not-a-grant'),
      refusalOf(`${token}.extra`),
      refusalOf(`${payload}.`),
      refusalOf(`${payload}.${signature}!`),
      refusalOf(`${token}${'a'.repeat(5000)}`),
      refusalOf(token, { nowMs: CLAIMS.expiresAt }),
      refusalOf(token, { bot: 'other', nowMs: NOW }),
    ];
    for (const [index, error] of refusals.entries()) {
      expect(error, `case ${index}`).toBeInstanceOf(GrantRefused);
      // No message at all: nothing says which check failed.
      expect((error as Error).message, `case ${index}`).toBe('');
    }
  });

  it('refuses a well-signed token whose claims are not a grant', () => {
    for (const payload of ['not json', '[]', '{}', JSON.stringify({ ...CLAIMS, extra: 1 }), JSON.stringify({ ...CLAIMS, bot: 'Not A Slug' }), JSON.stringify({ ...CLAIMS, person: '' }), JSON.stringify({ ...CLAIMS, limits: { steps: 1 } }), JSON.stringify({ ...CLAIMS, limits: { ...CLAIMS.limits, perDay: { spend: 'lots' } } })]) {
      expect(refusalOf(signedOver(payload)), payload).toBeInstanceOf(GrantRefused);
    }
    expect(verifyGrant(SECRET, signedOver(JSON.stringify(CLAIMS)), { nowMs: NOW })).toEqual(CLAIMS);
  });

  it('never puts the secret in a token', () => {
    const token = signGrant(SECRET, CLAIMS);
    const secretText = new TextDecoder().decode(SECRET);
    expect(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()).not.toContain(secretText);
  });
});

describe('the grant secret', () => {
  const fresh = () => mkdtemp(join(tmpdir(), 'confab-data-'));

  it('uses GRANT_SECRET when it is long enough', async () => {
    const text = 'x'.repeat(32);
    expect(await loadGrantSecret({ env: { GRANT_SECRET: text }, dataDir: await fresh() })).toEqual(new TextEncoder().encode(text));
  });

  it('refuses a short GRANT_SECRET with a message that says how to fix it and does not repeat it', async () => {
    const error = await loadGrantSecret({ env: { GRANT_SECRET: 'hunter2-short' }, dataDir: await fresh() }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/GRANT_SECRET is 13 characters; set it to at least 32/);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('generates one secret into the data folder, private to its owner, and reuses it on the next start', async () => {
    const dataDir = join(await fresh(), 'nested', '.data');
    const first = await loadGrantSecret({ env: {}, dataDir });
    expect(first.length).toBeGreaterThanOrEqual(32);
    const file = join(dataDir, GRANT_SECRET_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadGrantSecret({ env: { GRANT_SECRET: '' }, dataDir })).toEqual(first);
    const token = signGrant(first, CLAIMS);
    expect(verifyGrant(await loadGrantSecret({ env: {}, dataDir }), token, { nowMs: NOW })).toEqual(CLAIMS);
  });

  it('agrees on one secret when instances start at once over a fresh folder', async () => {
    const dataDir = await fresh();
    const secrets = await Promise.all(Array.from({ length: 8 }, () => loadGrantSecret({ env: {}, dataDir })));
    for (const secret of secrets) expect(secret).toEqual(secrets[0]);
  });

  it('lets an instance given the generated secret as GRANT_SECRET accept the first one’s grants', async () => {
    const dataDir = await fresh();
    const first = await loadGrantSecret({ env: {}, dataDir });
    const copied = await readFile(join(dataDir, GRANT_SECRET_FILE), 'utf8');
    const second = await loadGrantSecret({ env: { GRANT_SECRET: copied }, dataDir: await fresh() });
    expect(verifyGrant(second, signGrant(first, CLAIMS), { bot: 'demo', nowMs: NOW })).toEqual(CLAIMS);
  });
});

describe('the grant secret over Postgres, GRANT_SECRET unset', { timeout: DB_TEST_MS }, () => {
  let postgres: SocketPostgres;
  let one: Database;
  let two: Database;
  const fresh = () => mkdtemp(join(tmpdir(), 'confab-data-'));

  beforeAll(async () => {
    postgres = await startSocketPostgres();
    [one, two] = await Promise.all([openDatabase({ url: postgres.url }), openDatabase({ url: postgres.url })]);
  }, OPENING_MS);
  afterAll(async () => {
    await Promise.all([one.close(), two.close()]);
    await postgres.stop();
  });

  it('is made once in the database: two instances starting at once, each with a data folder of its own, sign with the same secret', async () => {
    const [first, second] = await Promise.all([loadGrantSecret({ env: {}, dataDir: await fresh(), db: one }), loadGrantSecret({ env: {}, dataDir: await fresh(), db: two })]);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(second).toEqual(first);
    expect(verifyGrant(second, signGrant(first, CLAIMS), { bot: 'demo', nowMs: NOW })).toEqual(CLAIMS);
    // Nothing is written into the data folder: the database is where it is kept.
    const dataDir = await fresh();
    expect(await loadGrantSecret({ env: { GRANT_SECRET: ' ' }, dataDir, db: one })).toEqual(first);
    await expect(stat(join(dataDir, GRANT_SECRET_FILE))).rejects.toThrow(/ENOENT/);
  });

  it('is readable by no person', async () => {
    await loadGrantSecret({ env: {}, dataDir: await fresh(), db: one });
    await expect(two.asPerson('somebody', (tx) => tx.query('select value from server_secrets'))).rejects.toBeInstanceOf(RefusedError);
  });

  it('still takes GRANT_SECRET first, and says where one would be made without it', async () => {
    const text = 'z'.repeat(40);
    expect(await loadGrantSecret({ env: { GRANT_SECRET: text }, dataDir: await fresh(), db: one })).toEqual(new TextEncoder().encode(text));
    await expect(loadGrantSecret({ env: { GRANT_SECRET: 'short' }, dataDir: await fresh(), db: one })).rejects.toThrow(/or leave it unset to have one made once in the database for every instance\.$/);
  });
});

describe('the grant secret kept in a data folder, moving to the database', { timeout: DB_TEST_MS }, () => {
  it('is the secret the first instance kept in its folder, so its cookies and grants carry on', async () => {
    const postgres = await startSocketPostgres();
    const db = await openDatabase({ url: postgres.url });
    try {
      const dataDir = await mkdtemp(join(tmpdir(), 'confab-data-'));
      const kept = 'k'.repeat(43);
      await writeFile(join(dataDir, GRANT_SECRET_FILE), `${kept}\n`);
      expect(await loadGrantSecret({ env: {}, dataDir, db })).toEqual(new TextEncoder().encode(kept));
      expect(await loadGrantSecret({ env: {}, dataDir: await mkdtemp(join(tmpdir(), 'confab-data-')), db })).toEqual(new TextEncoder().encode(kept));
    } finally {
      await db.close();
      await postgres.stop();
    }
  }, OPENING_MS);
});

describe('a bearer grant on a request', () => {
  const app = new Hono();
  app.post('/v1/chat/completions', (c) => c.json(bearerGrant(c, SECRET, { bot: c.req.query('bot'), nowMs: NOW })));
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      return c.json({ error: error.message, cause: error.cause instanceof GrantRefused }, error.status);
    }
    return c.json({ error: 'unexpected' }, 500);
  });
  const send = (authorization?: string, bot?: string) =>
    app.request(`/v1/chat/completions${bot === undefined ? '' : `?bot=${bot}`}`, {
      method: 'POST',
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });

  it('gives the handler the claims of a valid grant', async () => {
    const res = await send(`Bearer ${signGrant(SECRET, CLAIMS)}`, 'demo');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(CLAIMS);
  });

  it('answers 401 with the one message for no grant, a bad one, another scheme and another bot', async () => {
    const token = signGrant(SECRET, CLAIMS);
    for (const [authorization, bot] of [[undefined], ['Bearer'], [`Bearer ${token}x`], [`Basic ${token}`], [`Bearer ${token}`, 'other']] as const) {
      const res = await send(authorization, bot);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: requestRefusal('requests.grant-refused'), cause: true });
    }
  });

  it('says the 401 in the language the request asks for', async () => {
    const res = await app.request('/v1/chat/completions', { method: 'POST', headers: { 'Accept-Language': 'de-AT, en;q=0.5' } });
    expect(await res.json()).toEqual({ error: requestRefusal('requests.grant-refused', {}, 'de'), cause: true });
  });
});

describe('one encoding of a grant', () => {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const token = signGrant(SECRET, CLAIMS);
  /** Every string one character away from `token` at position `at`, the dot and padding among them. */
  const changedAt = (at: number) => [...ALPHABET.split(''), '.', '=', '+', '/'].filter((c) => c !== token[at]).map((c) => token.slice(0, at) + c + token.slice(at + 1));

  it('refuses every one-character change anywhere in a real grant', () => {
    let tried = 0;
    for (let at = 0; at < token.length; at++) {
      for (const changed of changedAt(at)) {
        tried += 1;
        expect(refusalOf(changed), `${String(at)}: ${changed}`).toBeInstanceOf(GrantRefused);
      }
    }
    expect(tried).toBe(token.length * 67);
  });

  it('gives each change to the last characters, and a sample elsewhere, the one 401 over HTTP', async () => {
    const app = new Hono();
    app.post('/v1/chat/completions', (c) => c.json(bearerGrant(c, SECRET, { nowMs: NOW })));
    app.onError((error, c) => (error instanceof HTTPException ? c.json({ error: error.message }, error.status) : c.json({ error: 'unexpected' }, 500)));
    const positions = [...Array.from({ length: 4 }, (_, i) => token.length - 1 - i), ...Array.from({ length: 12 }, (_, i) => Math.floor((i * token.length) / 12))];
    const answers = new Set<string>();
    for (const at of positions) {
      for (const changed of changedAt(at)) {
        const res = await app.request('/v1/chat/completions', { method: 'POST', headers: { Authorization: `Bearer ${changed}` } });
        answers.add(`${String(res.status)} ${await res.text()}`);
      }
    }
    expect([...answers]).toEqual([`401 ${JSON.stringify({ error: requestRefusal('requests.grant-refused') })}`]);
    expect((await app.request('/v1/chat/completions', { method: 'POST', headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
