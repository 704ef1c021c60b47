/**
 * What the stand-in says of an outside tool's result: briefly, from its fields, as a person would,
 * in the person's language — never the JSON itself.
 */
import { describe, expect, it } from 'vitest';
import { shippedWords } from '../../../server/words/loadWords';
import { spokenResult } from '../../../server/outside/spokenResult';

const en = shippedWords().wordsIn('en');
const art = (id: number, title: string) => ({ id, title, artist: 'Someone', year: 1900 + id, tags: ['oil'] });

describe('spokenResult', () => {
  it('says how many a list holds and the first few by name, and how many more', () => {
    expect(spokenResult('museum', { status: 200, body: [art(1, 'Mona Lisa'), art(2, 'Guernica')] }, en, 'en')).toBe('museum found 2: Mona Lisa and Guernica.');
    const five = [1, 2, 3, 4, 5].map((id) => art(id, `Work ${String(id)}`));
    expect(spokenResult('museum', { status: 200, body: five }, en, 'en')).toBe('museum found 5: Work 1, Work 2, Work 3, and 2 more.');
    expect(spokenResult('museum', { status: 200, body: [art(7, 'The Scream')] }, en, 'en')).toBe('museum found one: The Scream.');
    expect(spokenResult('museum', { status: 200, body: [] }, en, 'en')).toBe('museum found nothing.');
  });

  it('names an item with no name by its first plain fields, and a list of scalars by its values', () => {
    expect(spokenResult('cal', [{ eventId: 4, startsAt: '09:00', guests: [] }], en, 'en')).toBe('cal found one: event id 4, starts at 09:00.');
    expect(spokenResult('cal', { items: ['a', 'b'], total: 2 }, en, 'en')).toBe('cal found 2: a and b.');
    expect(spokenResult('cal', [{ nested: { deep: true } }, { nested: {} }], en, 'en')).toBe('cal found 2.');
  });

  it('says an object by its name and a few plain fields, and text as it is, cut at a word when long', () => {
    expect(spokenResult('museum', art(3, 'Water Lilies'), en, 'en')).toBe('museum says: Water Lilies, id 3, artist Someone.');
    expect(spokenResult('everything', { text: 'Echo: good morning' }, en, 'en')).toBe('everything says: Echo: good morning');
    const long = spokenResult('everything', { text: 'word '.repeat(100) }, en, 'en');
    expect(long.length).toBeLessThan(240);
    expect(long).toMatch(/word…$/);
  });

  it('reads JSON an MCP tool answered as text as the JSON it holds, never aloud as JSON', () => {
    const said = spokenResult('museum', { text: JSON.stringify({ status: 200, body: [art(1, 'Mona Lisa')] }) }, en, 'en');
    expect(said).toBe('museum found one: Mona Lisa.');
    expect(said).not.toMatch(/[{}"[\]]/);
  });

  it('says it is done when the answer had nothing in it (a 204)', () => {
    expect(spokenResult('museum', { status: 204 }, en, 'en')).toBe('museum has done that.');
    expect(spokenResult('museum', {}, en, 'en')).toBe('museum has done that.');
  });

  it('speaks the person’s language, joining a list as that language does', () => {
    const items = [art(1, 'Mona Lisa'), art(2, 'Guernica')];
    const five = [1, 2, 3, 4, 5].map((id) => art(id, `Work ${String(id)}`));
    expect(spokenResult('museum', items, shippedWords().wordsIn('es'), 'es')).toBe('museum ha encontrado 2: Mona Lisa y Guernica.');
    expect(spokenResult('museum', five, shippedWords().wordsIn('es'), 'es')).toBe('museum ha encontrado 5: Work 1, Work 2, Work 3 y 2 más.');
    expect(spokenResult('museum', five, shippedWords().wordsIn('fr'), 'fr')).toBe('museum a trouvé 5 résultats : Work 1, Work 2, Work 3 et 2 autres.');
    expect(spokenResult('museum', five, shippedWords().wordsIn('de'), 'de')).toBe('museum hat 5 gefunden: Work 1, Work 2, Work 3 und 2 weitere.');
    expect(spokenResult('museum', items, shippedWords().wordsIn('de'), 'de')).toBe('museum hat 2 gefunden: Mona Lisa und Guernica.');
    expect(spokenResult('museum', { status: 204 }, shippedWords().wordsIn('fr'), 'fr')).toBe("museum l'a fait.");
  });
});
