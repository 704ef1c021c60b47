/**
 * The reader's settings, kept per device in IndexedDB under the bot's slug: they describe a device
 * as much as a person (the shared office laptop holds to talk, the same person's phone does not),
 * and a preference that needs a sign-in is a preference nobody sets.
 */
import type { PublicBot } from '../../common/bot';
import { reconcileSettings } from '../core/settings';
import type { Settings } from '../core/settings';
import { localDb } from './localDb';
import type { LocalDb } from './localDb';
import { sayWord } from './words';

/** The settings could not be kept on this device; they still hold for this visit. */
export class SettingsStoreError extends Error {
  override readonly name = 'SettingsStoreError';
}

/**
 * This device's settings for `bot`, each field still valid for it kept and the rest the bot's
 * defaults. Never rejects: with IndexedDB missing or failing (private browsing) it gives the
 * defaults, and the page works without remembering.
 */
export async function loadSettings(bot: PublicBot, offeredVoices: readonly string[], db: () => Promise<LocalDb> = localDb): Promise<Settings> {
  let stored: unknown;
  try {
    stored = await (await db()).get('settings', bot.slug);
  } catch {
    // Nothing kept is the same as nothing chosen: the defaults are the answer, not an error.
    stored = undefined;
  }
  return reconcileSettings(stored, bot, offeredVoices);
}

/**
 * Keeps `settings` for the bot `slug` on this device. Rejects with `SettingsStoreError` when they
 * cannot be kept; the choice still holds until the page is closed.
 */
export async function saveSettings(slug: string, settings: Settings, db: () => Promise<LocalDb> = localDb): Promise<void> {
  try {
    await (await db()).put('settings', plainSettings(settings), slug);
  } catch (cause) {
    throw new SettingsStoreError(sayWord('page-lines.settings-not-kept'), { cause });
  }
}

/**
 * A plain copy with only the settings' own fields: a reactive proxy from the page cannot be stored
 * (IndexedDB refuses what it cannot clone), and nothing else the object carries belongs on disk.
 */
function plainSettings(settings: Settings): Settings {
  const { voice, language, shape, speed, hearing, speech } = settings;
  return { voice, language, shape, speed, hearing, speech };
}
