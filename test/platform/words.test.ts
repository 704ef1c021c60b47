/**
 * The page's words as it runs: English until a language is chosen, then that language's shipped
 * words, then the site's as the server sends them — kept on this device, so the next start speaks
 * them before any connection.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryStorage } from '../helpers/memoryStorage';

const wordsModule = () => import('../../src/platform/words');
const offline: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
const answering = (body: unknown): typeof fetch => () => Promise.resolve(Response.json(body));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('the page’s words', () => {
  it('are English before a language is chosen, then the chosen language’s, telling whoever listens', async () => {
    const words = await wordsModule();
    expect(words.sayWord('page-controls.send')).toBe('Send');
    const changed = vi.fn();
    words.onWordsChanged(changed);
    await words.speakLanguage('es', offline);
    expect(words.wordsLanguage()).toBe('es');
    expect(words.sayWord('page-controls.send')).toBe('Enviar');
    expect(words.sayWord('page-lines.waiting', { n: 2 })).toBe('2 líneas esperando a guardarse');
    expect(changed).toHaveBeenCalled();
  });

  it('take the site’s words over the shipped ones, and keep them for a start with no connection', async () => {
    const storage = memoryStorage();
    vi.stubGlobal('localStorage', storage);
    const first = await wordsModule();
    await first.speakLanguage('fr', answering({ language: 'fr', words: { 'page-controls.send': 'Expédier', 'endings.failed': 'not the page’s', 'page-controls.yes': 3 } }));
    expect(first.sayWord('page-controls.send')).toBe('Expédier');
    expect(first.sayWord('page-controls.yes')).toBe('Oui');

    vi.resetModules();
    const next = await wordsModule();
    expect(next.wordsLanguage()).toBe('fr');
    expect(next.sayWord('page-controls.send')).toBe('Expédier');
    expect(JSON.parse(storage.items.get('confab.words.fr') ?? '{}')).toEqual({ 'page-controls.send': 'Expédier' });
  });

  it('leave a language the person has since left as it is when its words arrive late', async () => {
    const words = await wordsModule();
    let answer: (response: Response) => void = () => undefined;
    const late: typeof fetch = () => new Promise((resolve) => (answer = resolve));
    const leaving = words.speakLanguage('de', late);
    await words.speakLanguage('es', offline);
    answer(Response.json({ words: { 'page-controls.send': 'Abschicken' } }));
    await leaving;
    expect(words.sayWord('page-controls.send')).toBe('Enviar');
  });
});
