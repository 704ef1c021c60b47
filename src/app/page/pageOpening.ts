/**
 * What the page opens with, before its parts are made: the grant, the bot and the reader's
 * settings (or why there are none), where this device remembers things, and the page's clock.
 */
import { defaultSettings } from '../../core/settings';
import { VOICES } from '../../../common/voice/style';
import type { PageConfig } from '../../../common/voice/api';
import { fetchPageConfig } from '../../platform/apiClient';
import { retryable } from '../../platform/conversationApi';
import { HttpError } from '../../platform/http';
import type { ConversationApi, Start } from '../../platform/conversationApi';
import { loadSettings } from '../../platform/settingsStore';
import { sayWord, speakLanguage } from '../../platform/words';
import { sentenceOf } from '../sentenceOf';
import type { PageStore } from './pageStore';

/** The page's clock and timers, for the schedulers that run on one (notices, presence). */
export const pageTimers = {
  nowMs: () => Date.now(),
  after: (delayMs: number, run: () => void) => {
    const timer = setTimeout(run, delayMs);
    return () => {
      clearTimeout(timer);
    };
  },
};

/** This device's storage, or null where it has none the page may use. */
export function storageOrNull(): Pick<Storage, 'getItem' | 'setItem'> | null {
  try {
    return globalThis.localStorage;
  } catch {
    return null;
  }
}

/** The grant, the bot and the reader's settings: the store is ready, or says why not (and the answer is null). */
export async function openBot(slug: string, api: Pick<ConversationApi, 'start'>, store: PageStore, fetcher: typeof fetch | undefined): Promise<{ started: Start; config: PageConfig } | null> {
  try {
    const [started, config] = await Promise.all([api.start(slug), fetchPageConfig(fetcher)]);
    const bot = started.bot;
    const voices = bot.voice.by === 'browser' ? (bot.voice.voices.length > 0 ? bot.voice.voices.filter((v) => (VOICES as readonly string[]).includes(v)) : [...VOICES]) : bot.voice.voices;
    const settings = await loadSettings(bot, voices).catch(() => defaultSettings(bot, voices));
    // The page speaks the person's language from here on; the site's words follow when they come.
    void speakLanguage(settings.language);
    store.update({ phase: 'ready', bot, voices, settings, memories: bot.memory === 'person+recall' ? [] : null, greeting: bot.greeting ?? null });
    return { started, config };
  } catch (error) {
    const missing = error instanceof Error && 'status' in error && (error as { status?: number }).status === 404;
    // A bot not for this person (its `for:`): the server's one sentence says who it is for, and is all the page shows.
    const refused = error instanceof HttpError && error.status === 403 ? error.said : undefined;
    const unreachable = retryable(error);
    store.update({
      phase: missing ? 'missing' : refused !== undefined ? 'refused' : unreachable ? 'unreachable' : 'failed',
      reason: missing ? sayWord('page-server.no-such-bot', { bot: slug }) : (refused ?? (unreachable ? sayWord('page-server.cannot-be-reached') : sentenceOf(error))),
      engine: { kind: 'not-needed' },
    });
    return null;
  }
}
