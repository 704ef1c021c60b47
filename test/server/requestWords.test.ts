/**
 * A refused request is told why in its own language: the page's (`x-confab-language`), else the
 * client's `Accept-Language`, else the server's; from the site's words where it has changed them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app';
import type { ApiDeps } from '../../server/app';
import { defaultWordsDir, loadWords } from '../../server/words/loadWords';
import { requestRefusal } from '../helpers/words';

const config = { distDir: '/nonexistent', modelsDir: '/nonexistent', modelBase: { kind: 'hub' } as const, modelVersion: 'supertonic-3' as const };
const api = (wordBook?: ApiDeps['wordBook']): ApiDeps => ({
  personMode: { kind: 'local' },
  bots: new Map(),
  grantSecret: new TextEncoder().encode('a-grant-secret-of-more-than-thirty-two-characters'),
  clock: () => 1_750_000_000_000,
  ...(wordBook === undefined ? {} : { wordBook }),
});
const refusalOf = async (headers: Record<string, string>, app = createApp({ config, api: api() })) =>
  ((await (await app.request('/api/bots/nobody', { headers })).json()) as { error: string }).error;

describe('a refused request', () => {
  it('is told in the page’s language, else the first of Accept-Language there are words for, else English', async () => {
    const noBot = (language: string) => requestRefusal('requests.no-bot', { bot: 'nobody' }, language);
    expect(await refusalOf({ 'x-confab-language': 'de', 'accept-language': 'fr' })).toBe(noBot('de'));
    expect(await refusalOf({ 'accept-language': 'ja, es-MX;q=0.8, fr;q=0.5' })).toBe(noBot('es'));
    expect(await refusalOf({ 'x-confab-language': 'ja' })).toBe(noBot('en'));
    expect(await refusalOf({})).toBe(noBot('en'));
    expect(noBot('fr')).not.toBe(noBot('en'));
  });

  describe('on a site with words of its own', () => {
    let site = '';
    beforeAll(async () => {
      site = await mkdtemp(join(tmpdir(), 'site-words-'));
      await writeFile(join(site, 'es.md'), '## requests\n- no-bot: Aquí nadie se llama {bot}.\n');
    });
    afterAll(async () => {
      await rm(site, { recursive: true });
    });

    it('is told in the site’s words where it changed them, and the shipped ones elsewhere', async () => {
      const app = createApp({ config, api: api(loadWords({ dir: defaultWordsDir(), siteDir: site })) });
      expect(await refusalOf({ 'accept-language': 'es' }, app)).toBe('Aquí nadie se llama nobody.');
      const nowhere = await app.request('/api/nowhere', { headers: { 'accept-language': 'es' } });
      expect(await nowhere.json()).toEqual({ error: requestRefusal('requests.no-route', {}, 'es') });
    });
  });
});
