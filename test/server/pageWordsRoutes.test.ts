/**
 * `GET /api/words/<lang>`: the page's words in one language as this site says them — its own over
 * the shipped — and nothing of the server's own words.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_PAGE_WORD_KEYS } from '../../common/pageWords';
import { defaultWordsDir, loadWords } from '../../server/words/loadWords';
import { pageWordsRoutes } from '../../server/words/pageWordsRoutes';
import { openTestBackend } from '../helpers/testBackend';

describe('the page’s words, as the server sends them', () => {
  it('are every word the page says in the language asked for, and none of the server’s', async () => {
    const routes = pageWordsRoutes(loadWords({ dir: defaultWordsDir() }));
    const response = await routes.request('/words/es');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { language: string; words: Record<string, string> };
    expect(body.language).toBe('es');
    expect(Object.keys(body.words).sort()).toEqual([...ALL_PAGE_WORD_KEYS].sort());
    expect(body.words['page-controls.send']).toBe('Enviar');
    expect(body.words['page-talk.unsettled-no']).toBe('Vale, lo he dejado como estaba.');
  });

  it('lay the site’s own words over the shipped ones', async () => {
    const site = await mkdtemp(join(tmpdir(), 'site-words-'));
    try {
      await writeFile(join(site, 'fr.md'), '## page-controls\n- send: Expédier\n');
      const routes = pageWordsRoutes(loadWords({ dir: defaultWordsDir(), siteDir: site }));
      const body = (await (await routes.request('/words/fr')).json()) as { words: Record<string, string> };
      expect(body.words['page-controls.send']).toBe('Expédier');
      expect(body.words['page-controls.yes']).toBe('Oui');
    } finally {
      await rm(site, { recursive: true });
    }
  });

  it('are served under /api to anybody, making no person and asking for no Origin', async () => {
    const backend = await openTestBackend();
    try {
      const response = await backend.request('/api/words/de');
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(((await response.json()) as { words: Record<string, string> }).words['page-controls.send']).toBe('Senden');
    } finally {
      await backend.close();
    }
  });

  it('refuses what is not a language tag', async () => {
    const routes = pageWordsRoutes(loadWords({ dir: defaultWordsDir() }));
    expect((await routes.request('/words/not%20a%20language')).status).toBe(400);
  });
});
