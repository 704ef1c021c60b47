/**
 * Where people and devices live: a page visit to a loopback address goes to localhost (WebAuthn
 * refuses an address as the site's name) while every API keeps answering on both names; and
 * Supabase mode, which signs people in its own way, has none of these routes.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPersonMode } from '../../../server/person';
import { openTestBackend, TEST_APP_CONFIG } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { requestRefusal } from '../../helpers/words';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';

let backend: TestBackend;

beforeAll(async () => {
  backend = await openTestBackend();
}, OPENING_MS);

afterAll(async () => {
  await backend.close();
});

const visit = (url: string, headers: Record<string, string> = {}) => backend.request(url, { headers: { host: new URL(url).host, ...headers } });

describe('a page visit to a loopback address', { timeout: DB_TEST_MS }, () => {
  it('is sent to the same page on localhost and the same port', async () => {
    for (const [from, to] of [
      ['http://127.0.0.1:8787/', 'http://localhost:8787/'],
      ['http://127.0.0.1:8787/voice/demo?text=1', 'http://localhost:8787/voice/demo?text=1'],
      ['http://[::1]:8787/link', 'http://localhost:8787/link'],
    ] as const) {
      const res = await visit(from);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(to);
    }
  });

  it('is not sent anywhere on localhost, for a file, or for an API', async () => {
    expect((await visit('http://localhost:8787/')).status).toBe(503);
    expect((await visit('http://127.0.0.1:8787/assets/app.js')).status).toBe(404);
    expect((await visit('http://127.0.0.1:8787/api/health')).status).toBe(200);
    const started = await visit('http://127.0.0.1:8787/api/me', { origin: 'http://127.0.0.1:8787' });
    expect(started.status).toBe(200);
    expect(await started.json()).toEqual({ kind: 'cookie', owner: false, name: null });
  });
});

describe('Supabase mode', { timeout: DB_TEST_MS }, () => {
  it('has no passkey, device or invitation routes', async () => {
    const jwtSecret = 'a-supabase-jwt-secret-of-forty-characters';
    const mode = readPersonMode({ SUPABASE_URL: 'https://project.supabase.co', SUPABASE_JWT_SECRET: jwtSecret });
    const supabase = await openTestBackend({ personMode: mode, config: { ...TEST_APP_CONFIG, supabaseAnonKey: 'anon' } });
    try {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('supabase-person')
        .setIssuer('https://project.supabase.co/auth/v1')
        .setAudience('authenticated')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(jwtSecret));
      for (const [method, path] of [
        ['GET', '/api/me'],
        ['POST', '/api/passkeys/register/options'],
        ['POST', '/api/passkeys/sign-in/options'],
        ['GET', '/api/devices'],
        ['POST', '/api/devices/link-code'],
        ['POST', '/api/sign-out'],
        ['POST', '/api/owner/invites'],
      ] as const) {
        const res = await supabase.request(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${token}` } });
        expect([path, res.status, await res.json()]).toEqual([path, 404, { error: requestRefusal('requests.no-route') }]);
      }
    } finally {
      await supabase.close();
    }
  });
});
