import { beforeAll, describe, expect, it } from 'vitest';
import { createRegistry, loadApps } from '../../../server/verbs/registry';
import type { App } from '../../../server/verbs/verb';
import { standInCall } from '../../helpers/verbContext';

describe('the apps together', () => {
  let apps: App[];
  beforeAll(async () => {
    apps = await loadApps();
  });

  it('are found in server/apps and pass the registry’s checks together', () => {
    expect(apps.map((app) => app.name)).toEqual(expect.arrayContaining(['clock', 'conversations', 'lists', 'memory', 'reminders']));
    expect(() => createRegistry(apps)).not.toThrow();
  });

  it('give every verb a stand-in whose example phrase calls that verb', () => {
    for (const verb of apps.flatMap((app) => app.verbs)) {
      expect(verb.standIn, verb.name).toBeDefined();
      expect(standInCall(apps, verb.example)?.verb, verb.example).toBe(verb.name);
    }
  });

  it.each([
    ['add milk and eggs to my shopping list', 'lists.add'],
    ["what's on my list", 'lists.read'],
    ['remind me in ten minutes to add milk to my shopping list', 'reminders.set'],
    ['remind me to read my shopping list at 6 pm', 'reminders.set'],
    ['what reminders do I have', 'reminders.list'],
    ['remember that the shopping list is on the fridge', 'memory.remember'],
    ['forget what I said about my shopping list', 'memory.forget'],
    ['what did I say about the shopping list', 'conversations.find'],
    ['what time is it', 'clock.now'],
  ])('with every app in scope, the stand-in hears %j as %s', (line, verb) => {
    expect(standInCall(apps, line)?.verb).toBe(verb);
  });
});
