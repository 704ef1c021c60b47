/**
 * Which verbs one turn may use, and why: always → the bot's apps → the last two apps used, at most
 * twelve, with what was left out and whether the cap took it; when the bot's apps do not all fit,
 * the one the person's line speaks of first, then those used lately.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry } from '../../../server/verbs/registry';
import { RECENT_APPS, SCOPE_MAX, recentAppsMatter, scopeOf } from '../../../server/verbs/scope';
import type { Scope } from '../../../server/verbs/scope';
import { defineApp, defineVerb } from '../../../server/verbs/verb';
import type { App } from '../../../server/verbs/verb';
import { testApps } from '../../helpers/testApps';

/** An app `name` with `count` reads called `<name>.v1` … `<name>.v<count>`. */
function appOf(name: string, count: number): App {
  return defineApp({
    name,
    description: `The ${name} app.`,
    verbs: Array.from({ length: count }, (_, i) =>
      defineVerb({
        name: `${name}.v${String(i + 1)}`,
        description: 'Does a thing.',
        example: 'do a thing',
        input: z.object({}),
        output: z.object({}),
        risk: 'read',
        deadlineMs: 100,
        run: () => Promise.resolve({}),
      }),
    ),
  });
}

const listed = (scope: Scope) => scope.verbs.map(({ verb, why }) => `${verb.name} ${why}`);

describe('scopeOf', () => {
  const registry = createRegistry([...testApps, appOf('lamp', 2), appOf('kettle', 1), appOf('radio', 1)]);

  it('puts the always verbs first, then the bot’s apps in its file’s order, then the two most recent apps', () => {
    const scope = scopeOf(registry, { botApps: ['kettle', 'tally'], recentApps: ['radio', 'lamp', 'chime'] });
    expect(listed(scope)).toEqual([
      'chime.now always',
      'kettle.v1 bot',
      'tally.add bot',
      'tally.count bot',
      'tally.wait bot',
      'tally.broken bot',
      'tally.huge bot',
      'tally.fail bot',
      'tally.clear bot',
      'radio.v1 recent',
      'lamp.v1 recent',
      'lamp.v2 recent',
    ]);
    expect(RECENT_APPS).toBe(2);
    // chime was used third most recently: only the last two count, so chime.ring is not chosen.
    expect(scope.leftOut).toEqual([{ verb: 'chime.ring', why: 'not-chosen' }]);
  });

  it('offers only the always verbs to a bot with no apps in a conversation with nothing used', () => {
    const scope = scopeOf(registry, { botApps: [], recentApps: [] });
    expect(listed(scope)).toEqual(['chime.now always']);
    expect(scope.names).toEqual(new Set(['chime.now']));
    expect(scope.leftOut.every((left) => left.why === 'not-chosen')).toBe(true);
    expect(scope.leftOut).toHaveLength(registry.verbs.length - 1);
  });

  it('lists each verb once, under its first reason, however many reasons it has', () => {
    const scope = scopeOf(registry, { botApps: ['chime', 'lamp', 'lamp'], recentApps: ['lamp', 'chime', 'radio'] });
    expect(listed(scope)).toEqual(['chime.now always', 'chime.ring bot', 'lamp.v1 bot', 'lamp.v2 bot', 'radio.v1 recent']);
  });

  it('gives the two recent places to apps not already offered whole, so a bot’s own app never takes one', () => {
    const scope = scopeOf(registry, { botApps: ['lamp'], recentApps: ['lamp', 'chime', 'radio'] });
    // lamp is the bot's own; chime (partly always) and radio are the two recent apps.
    expect(listed(scope)).toEqual(['chime.now always', 'lamp.v1 bot', 'lamp.v2 bot', 'chime.ring recent', 'radio.v1 recent']);
  });

  it('counts an app used twice in a row as one of the two recent apps', () => {
    const scope = scopeOf(registry, { botApps: [], recentApps: ['lamp', 'lamp', 'radio'] });
    expect(listed(scope)).toEqual(['chime.now always', 'lamp.v1 recent', 'lamp.v2 recent', 'radio.v1 recent']);
  });

  it('passes over apps it does not have', () => {
    const scope = scopeOf(registry, { botApps: ['gone', 'kettle'], recentApps: ['vanished'] });
    expect(listed(scope)).toEqual(['chime.now always', 'kettle.v1 bot']);
  });

  it('stops at twelve verbs and says which the cap left out, and which nothing chose', () => {
    const big = createRegistry([...testApps, appOf('lamp', 2), appOf('kettle', 1), appOf('radio', 1), appOf('piano', 8)]);
    const scope = scopeOf(big, { botApps: ['piano', 'lamp'], recentApps: ['tally'] });
    expect(SCOPE_MAX).toBe(12);
    expect(scope.verbs).toHaveLength(SCOPE_MAX);
    expect(listed(scope)).toEqual([
      'chime.now always',
      'piano.v1 bot',
      'piano.v2 bot',
      'piano.v3 bot',
      'piano.v4 bot',
      'piano.v5 bot',
      'piano.v6 bot',
      'piano.v7 bot',
      'piano.v8 bot',
      'lamp.v1 bot',
      'lamp.v2 bot',
      'tally.add recent',
    ]);
    expect(scope.leftOut).toEqual([
      { verb: 'tally.count', why: 'cap' },
      { verb: 'tally.wait', why: 'cap' },
      { verb: 'tally.broken', why: 'cap' },
      { verb: 'tally.huge', why: 'cap' },
      { verb: 'tally.fail', why: 'cap' },
      { verb: 'tally.clear', why: 'cap' },
      { verb: 'chime.ring', why: 'not-chosen' },
      { verb: 'kettle.v1', why: 'not-chosen' },
      { verb: 'radio.v1', why: 'not-chosen' },
    ]);
  });

  describe('when the bot’s own apps do not all fit', () => {
    const big = createRegistry([...testApps, appOf('lamp', 2), appOf('piano', 8)]);
    // 1 always + piano 8 + lamp 2 + tally 7: the file's order would leave tally out whole.
    const botApps = ['piano', 'lamp', 'tally'];
    const apps = (scope: Scope) => [...new Set(scope.verbs.filter((s) => s.why === 'bot').map((s) => s.verb.name.split('.')[0]))];

    it('keeps the file’s order when nothing says otherwise, and the cap takes the rest', () => {
      const scope = scopeOf(big, { botApps, recentApps: [] });
      expect(apps(scope)).toEqual(['piano', 'lamp', 'tally']);
      expect(listed(scope).at(-1)).toBe('tally.add bot');
      expect(scope.leftOut.filter((left) => left.why === 'cap').map((left) => left.verb)).toEqual(['tally.count', 'tally.wait', 'tally.broken', 'tally.huge', 'tally.fail', 'tally.clear']);
    });

    it('offers first the app the person’s line is a phrasing of, whatever the file’s order', () => {
      const scope = scopeOf(big, { botApps, recentApps: [], heard: 'Add milk to the tally.' });
      expect(apps(scope)).toEqual(['tally', 'piano']);
      expect(scope.names.has('tally.add')).toBe(true);
      expect(scope.verbs).toHaveLength(SCOPE_MAX);
    });

    it('then the apps used lately, most recent first, before the file’s order', () => {
      const scope = scopeOf(big, { botApps, recentApps: ['lamp', 'tally'], heard: 'play something' });
      expect(apps(scope)).toEqual(['lamp', 'tally', 'piano']);
      expect(scope.verbs).toHaveLength(SCOPE_MAX);
    });
  });

  it('names exactly the verbs in scope, for the executor’s policy', () => {
    const scope = scopeOf(registry, { botApps: ['lamp'], recentApps: ['kettle'] });
    expect([...scope.names]).toEqual(scope.verbs.map((s) => s.verb.name));
    expect([...scope.names]).toEqual(['chime.now', 'lamp.v1', 'lamp.v2', 'kettle.v1']);
    for (const left of scope.leftOut) expect(scope.names.has(left.verb)).toBe(false);
  });
});

describe('recentAppsMatter', () => {
  const registry = createRegistry([...testApps, appOf('lamp', 2), appOf('kettle', 1)]);
  const everyApp = registry.apps.map((app) => app.name);

  it('is false when always and the bot’s apps already offer every app whole: no recent app could change the scope', () => {
    expect(recentAppsMatter(registry, everyApp)).toBe(false);
    // Whatever the conversation used, the scope is the same without reading it.
    for (const used of [[], ['lamp'], ['kettle', 'chime'], everyApp]) {
      expect(listed(scopeOf(registry, { botApps: everyApp, recentApps: used }))).toEqual(listed(scopeOf(registry, { botApps: everyApp, recentApps: [] })));
    }
  });

  it('is true while some app is not offered whole — one left out, or only partly `always`', () => {
    expect(recentAppsMatter(registry, everyApp.filter((app) => app !== 'kettle'))).toBe(true);
    // chime.now is always, chime.ring is not: chime used lately would add chime.ring.
    expect(recentAppsMatter(registry, everyApp.filter((app) => app !== 'chime'))).toBe(true);
    expect(recentAppsMatter(registry, [])).toBe(true);
  });
});
