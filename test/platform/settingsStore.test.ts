import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { reactive } from 'vue';
import type { PublicBot } from '../../common/bot';
import { defaultSettings } from '../../src/core/settings';
import type { Settings } from '../../src/core/settings';
import { TALK } from '../../common/talk';
import { VOICES } from '../../common/voice/style';
import { LocalDbError, openLocalDb } from '../../src/platform/localDb';
import { loadSettings, saveSettings, SettingsStoreError } from '../../src/platform/settingsStore';

function bot(slug: string, voices: string[] = ['F2', 'M1']): PublicBot {
  return {
    slug,
    name: slug,
    voice: { ...TALK, by: 'browser', visual: 'bloom', voices, language: 'en' },
    memory: 'none',
    languages: ['en', 'es'],
  };
}

const offered = [...VOICES];

/** A fresh device: its own IndexedDB, opened as the page opens it. */
function device() {
  const factory = new IDBFactory();
  return { factory, db: () => openLocalDb(factory) };
}

const chosen: Settings = { voice: 'M3', language: 'es', shape: 'lattice', speed: 1.3, hearing: 'pushToTalk', speech: false };

describe('settings kept on this device', () => {
  it('gives the bot’s defaults when nothing was kept', async () => {
    const { db } = device();
    expect(await loadSettings(bot('ada'), offered, db)).toEqual(defaultSettings(bot('ada'), offered));
  });

  it('gives back what was saved, per bot', async () => {
    const { db } = device();
    await saveSettings('ada', chosen, db);
    expect(await loadSettings(bot('ada'), offered, db)).toEqual(chosen);
    expect(await loadSettings(bot('grace'), offered, db)).toEqual(defaultSettings(bot('grace'), offered));
  });

  it('keeps them across connections, as a reload would find them', async () => {
    const { factory } = device();
    const first = await openLocalDb(factory);
    await saveSettings('ada', chosen, () => Promise.resolve(first));
    first.close();
    expect(await loadSettings(bot('ada'), offered, () => openLocalDb(factory))).toEqual(chosen);
  });

  it('saves a reactive object from the page as its plain fields', async () => {
    const { db } = device();
    const live = reactive({ ...chosen, open: true });
    await saveSettings('ada', live, db);
    expect(await (await db()).get('settings', 'ada')).toEqual(chosen);
  });

  it('replaces what was kept with the newest choice', async () => {
    const { db } = device();
    await saveSettings('ada', chosen, db);
    await saveSettings('ada', { ...chosen, shape: 'halo' }, db);
    expect((await loadSettings(bot('ada'), offered, db)).shape).toBe('halo');
  });

  it('lets a choice the bot no longer allows fall back while keeping the rest', async () => {
    const { db } = device();
    await saveSettings('ada', chosen, db);
    const narrowed = bot('ada', ['F2']);
    expect(await loadSettings(narrowed, ['F2'], db)).toEqual({ ...chosen, voice: 'F2' });
  });

  it('gives the defaults for garbage an earlier page left', async () => {
    const { db } = device();
    await (await db()).put('settings', 'not settings', 'ada');
    expect(await loadSettings(bot('ada'), offered, db)).toEqual(defaultSettings(bot('ada'), offered));
  });

  it('gives the defaults when IndexedDB is missing or will not open, as in private browsing', async () => {
    const missing = () => openLocalDb(null);
    const refusing = () => Promise.reject(new LocalDbError('storage turned off'));
    expect(await loadSettings(bot('ada'), offered, missing)).toEqual(defaultSettings(bot('ada'), offered));
    expect(await loadSettings(bot('ada'), offered, refusing)).toEqual(defaultSettings(bot('ada'), offered));
  });

  it('says so, with a sentence a person can act on, when the choice cannot be kept', async () => {
    const refusing = () => Promise.reject(new LocalDbError('storage turned off'));
    const saving = saveSettings('ada', chosen, refusing);
    await expect(saving).rejects.toThrow(SettingsStoreError);
    await expect(saving).rejects.toThrow('hold only until this page is closed');
  });
});

describe('the local database', () => {
  it('has the settings, outbox and threads stores after its first open', async () => {
    const { db } = device();
    const open = await db();
    expect([...open.objectStoreNames].sort()).toEqual(['outbox', 'settings', 'threads']);
    expect(open.name).toBe('confab');
  });

  it('refuses with LocalDbError where there is no IndexedDB', async () => {
    await expect(openLocalDb(null)).rejects.toThrow(LocalDbError);
  });

  it('closes itself when a newer page upgrades the database, so the upgrade is not blocked', async () => {
    const { factory } = device();
    const old = await openLocalDb(factory);
    const upgraded = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open('confab', 2);
      request.onsuccess = () => {
        resolve(request.result);
      };
      request.onerror = () => {
        reject(request.error ?? new Error('open failed'));
      };
    });
    expect(upgraded.version).toBe(2);
    await expect(old.get('settings', 'ada')).rejects.toThrow();
    upgraded.close();
  });
});
