/**
 * What the reader decides, behind the cog: the voice, the language (it drives the recogniser as
 * well as the voice, so it is one setting), the orb's shape, how fast it speaks, how they are heard
 * and whether it speaks at all. The bot sets every default; a reader who changes one keeps their
 * own. They are kept per device (they describe a device as much as a person), so what comes back
 * from storage may predate a change to the bot file or to this page: `reconcileSettings` keeps
 * whatever is still valid and lets the rest fall back, one field at a time.
 */
import { ORB_SHAPES } from '../../common/bot';
import type { OrbShape, PublicBot } from '../../common/bot';
import { DEFAULT_SPEED } from '../../common/voice/config';
import type { Language } from '../../common/voice/text';

/**
 * How the person is heard: `open` — the microphone listens between answers and its button mutes;
 * `pushToTalk` — nothing is listened to except while the button (or Space) is held down.
 */
const HEARING_MODES = ['open', 'pushToTalk'] as const;
type HearingMode = (typeof HEARING_MODES)[number];

/**
 * What pages before the name `pushToTalk` stored for it: read as push to talk, so the choice is
 * not lost, and written under the new name with the next save.
 */
const STORED_PUSH_TO_TALK = 'hold';

/** Slowest speed the engine accepts (it refuses anything under). */
export const SPEED_MIN = 0.5;
/** Fastest speed the engine accepts (it refuses anything over). */
export const SPEED_MAX = 2;

/** What the reader decides for one bot on this device. */
export interface Settings {
  /**
   * The voice that speaks: one of the voices offered for this bot. Empty when none is offered and
   * the bot names none, which leaves the speaker's own default.
   */
  voice: string;
  /** The language spoken and recognised: one of the bot's `languages`. */
  language: Language;
  /** The orb's shape. Default: the bot's `voice.visual`. */
  shape: OrbShape;
  /** Speaking rate, from `SPEED_MIN` to `SPEED_MAX`; above 1 is faster. Default `DEFAULT_SPEED` (the model's own pace). */
  speed: number;
  /** How the person is heard. Default `open`. */
  hearing: HearingMode;
  /** Whether answers are spoken at all; off, nothing is synthesised and the answer is only written. Default on. */
  speech: boolean;
}

/**
 * The bot's own choices for a reader who has made none. The voice is the bot's first when it is
 * offered (or when nothing is offered, so there is no choice to make), else the first offered.
 */
export function defaultSettings(bot: PublicBot, offeredVoices: readonly string[]): Settings {
  return {
    voice: defaultVoice(bot, offeredVoices),
    language: bot.voice.language,
    shape: bot.voice.visual,
    speed: DEFAULT_SPEED,
    hearing: 'open',
    speech: true,
  };
}

/**
 * Settings for this bot from whatever storage gave back: each stored field that is still valid
 * (a voice still offered, a language the bot allows, a known shape, a speed in range…) is kept, and
 * each one that is not falls back to the bot's default on its own. Never throws: anything that is
 * not a record of settings — nothing stored, an older shape, garbage — gives the defaults.
 */
export function reconcileSettings(stored: unknown, bot: PublicBot, offeredVoices: readonly string[]): Settings {
  const defaults = defaultSettings(bot, offeredVoices);
  const languages: readonly string[] = bot.languages.length > 0 ? bot.languages : [bot.voice.language];
  const voice = ownField(stored, 'voice');
  const language = ownField(stored, 'language');
  const shape = ownField(stored, 'shape');
  const speed = ownField(stored, 'speed');
  const hearing = ownField(stored, 'hearing');
  const speech = ownField(stored, 'speech');
  return {
    voice: isOneOf(voice, offeredVoices) ? voice : defaults.voice,
    language: isOneOf(language, languages) ? (language as Language) : defaults.language,
    shape: isOneOf(shape, ORB_SHAPES) ? shape : defaults.shape,
    speed: isSpeed(speed) ? speed : defaults.speed,
    hearing: hearing === STORED_PUSH_TO_TALK ? 'pushToTalk' : isOneOf(hearing, HEARING_MODES) ? hearing : defaults.hearing,
    speech: typeof speech === 'boolean' ? speech : defaults.speech,
  };
}

/** Whether `value` is a speed the engine accepts: a finite number from `SPEED_MIN` to `SPEED_MAX`. */
export function isSpeed(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= SPEED_MIN && value <= SPEED_MAX;
}

function defaultVoice(bot: PublicBot, offeredVoices: readonly string[]): string {
  const botFirst = bot.voice.voices[0];
  if (botFirst !== undefined && (offeredVoices.length === 0 || offeredVoices.includes(botFirst))) return botFirst;
  return offeredVoices[0] ?? '';
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

/**
 * One field of a stored record, read without running a getter or reaching into the prototype;
 * `undefined` for anything that is not a plain record (a revoked proxy included), so garbage in
 * storage can only ever cost the reader their choices, never the page.
 */
function ownField(stored: unknown, key: keyof Settings): unknown {
  if (typeof stored !== 'object' || stored === null) return undefined;
  try {
    const descriptor = Object.getOwnPropertyDescriptor(stored, key);
    return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
  } catch {
    return undefined;
  }
}
