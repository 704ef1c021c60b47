/**
 * What the page says in its own name — its buttons and labels, what it says when something fails,
 * the few lines it speaks itself — kept in the `## page-…` sections of the words files
 * (`words/<lang>.md`), never in code. This is the page's catalogue of them and the one way to say
 * one in the person's language. The server reads the same files whole, checks these sections with
 * its own at start (so English must hold every word here too), and serves them with the site's
 * words laid over (`GET /api/words/<lang>`); the page bundles the shipped files for before then.
 */
import { filledIn, keysOf, layered, parseWords } from './words';
import type { KeyOf } from './words';

/** Every word the page says, by section, in the order the words files list them. */
export const PAGE_WORD_KEYS = {
  'page-talk': ['unsettled-yes', 'unsettled-no', 'while-away', 'take-your-time', 'voice-sample'],
  'page-answers': ['stopped', 'too-slow', 'unreachable', 'empty', 'dropped', 'unfinished', 'garbled', 'expired', 'busy', 'busy-said', 'refused-status', 'refused-silent'],
  'page-hearing': ['mic-refused', 'mic-missing', 'mic-unavailable', 'mic-unsupported', 'mic-meter', 'mic-lost', 'recogniser-not-allowed', 'recogniser-service-not-allowed', 'recogniser-audio-capture', 'recogniser-network', 'recogniser-language-not-supported', 'recogniser-failed', 'before-it-listens', 'start-listening', 'on-device-full', 'on-device-brief', 'in-browser-full', 'in-browser-brief', 'pack-installed', 'pack-downloading', 'pack-failed', 'pack-offered', 'pack-retry', 'pack-download'],
  'page-voice': ['could-not-start-unreachable', 'could-not-start-refused', 'could-not-start-busy', 'could-not-start-missing', 'could-not-start-damaged', 'could-not-start-unsupported', 'could-not-start-failed', 'could-not-start-short', 'device-could-not', 'no-endpoint', 'not-live', 'over-ceiling', 'refused', 'unreachable', 'no-grant', 'not-pcm', 'empty', 'broke-off', 'half-sample', 'downloading-once', 'machine-made', 'machine-made-here'],
  'page-server': ['unreachable-retried', 'busy-retried', 'unreachable', 'refused', 'refused-status', 'unreachable-plain', 'refused-plain', 'busy-plain', 'not-json', 'misshapen', 'no-page-config', 'page-config-refused', 'page-config-misshapen', 'cannot-be-reached', 'no-such-bot', 'no-such-page', 'start', 'list-bots', 'keep-conversation', 'list-conversations', 'open-conversation', 'save-line', 'choose', 'forget-conversation', 'list-memories', 'read-phrases', 'forget-memory', 'read-waiting', 'approve', 'deny', 'list-tokens', 'make-token', 'revoke-token', 'look-for-due', 'say-due', 'mark-due', 'follow-pages', 'claim-page', 'publish'],
  'page-lines': ['thread-refused', 'thread-lost', 'line-refused', 'sending-failed', 'storage-failed', 'not-saved', 'cannot-keep', 'line-not-kept', 'waiting-one', 'waiting', 'settings-not-kept', 'no-indexeddb', 'indexeddb-refused', 'indexeddb-failed'],
  'page-sign-in': ['missing-field', 'wrong-credentials', 'email-not-confirmed', 'account-exists', 'weak-password', 'invalid-email', 'sign-ups-closed', 'password-not-offered', 'guests-not-allowed', 'rate-limited', 'account-suspended', 'signed-out', 'unreachable', 'refused', 'refused-said', 'no-settings', 'not-loaded', 'title', 'why', 'email', 'password', 'sign-in', 'make-account', 'as-guest', 'check-email'],
  'page-controls': ['conversations', 'settings', 'show-transcript', 'hide-transcript', 'transcript', 'said-so-far', 'you-said', 'bot-said', 'the-bot', 'interrupted', 'type-to-bot', 'send', 'type-here', 'type-here-elsewhere', 'type-unsupported', 'type-refused', 'type-no-microphone', 'type-failed', 'mic-unsupported', 'mic-refused', 'mic-no-microphone', 'mic-failed', 'listening-let-go', 'hold-to-talk', 'listening', 'unmute', 'mute', 'elsewhere-tab', 'elsewhere-device', 'elsewhere-closed', 'use-here', 'yes', 'yes-label', 'no', 'no-label', 'awaiting-yes-no', 'warnings', 'try-again', 'dismiss'],
  'page-choices': ['taken', 'gone'],
  'page-orb': ['connecting', 'listening', 'hearing', 'thinking', 'speaking', 'muted', 'error', 'halo', 'halo-drawn', 'ribbon', 'ribbon-drawn', 'bloom', 'bloom-drawn', 'tide', 'tide-drawn', 'lattice', 'lattice-drawn', 'shape-label'],
  'page-settings': ['title', 'close', 'voice', 'language', 'shape', 'speed', 'speaking-speed', 'heard-how', 'open-microphone', 'push-to-talk', 'speak-answers'],
  'page-drawer': ['show', 'conversations', 'remembered', 'close', 'new', 'none-kept', 'forget', 'forget-for-good', 'forget-this', 'forget-this-for-good', 'none-remembered'],
  'page-wakes': ['title', 'allow', 'not-now', 'stop', 'failed'],
  'page-tokens': ['title', 'about', 'name', 'name-example', 'bots', 'make', 'copy-now', 'copy-token', 'copy-command', 'desktop-how', 'copy-configuration', 'copied-it', 'the-token', 'the-command', 'the-configuration', 'copied', 'not-copied', 'made', 'last-used', 'revoked', 'revoke', 'revoke-this'],
  'page-home': ['lede', 'talk-to', 'go-to-start', 'the-voice', 'about-voice', 'not-downloaded', 'downloading', 'downloading-progress', 'ready', 'ready-gpu', 'download', 'try-again', 'hear-it', 'sample-failed', 'spoke'],
  'page-people': ['tab', 'keep', 'keep-why', 'kept', 'sign-in', 'sign-in-why', 'enter-code', 'code', 'code-example', 'use-code', 'devices', 'passkeys', 'signed-in', 'this-device', 'synced', 'made', 'used', 'seen', 'via-passkey', 'via-link', 'remove', 'remove-this', 'last-passkey', 'only-device', 'remove-anyway', 'keep-it', 'link', 'link-how', 'qr', 'left', 'expired', 'another-code', 'sign-out', 'sign-out-why', 'owner', 'name-someone', 'name-why', 'name', 'name-example', 'make-link', 'link-made', 'copy', 'copied', 'not-copied', 'cost', 'today', 'this-month', 'answers', 'answer-one', 'nothing-yet', 'per-minute', 'per-hour', 'per-day', 'per-week', 'per-month', 'of-answers', 'of-spend', 'frees', 'room', 'take', 'take-why', 'download', 'forget-me', 'forget-why', 'forget-type', 'forget-for-good', 'never-mind', 'signed-out', 'no-passkeys', 'cancelled', 'passkey-failed', 'link-title', 'link-page-how', 'linked', 'invite-title', 'invite-how', 'take-name', 'named', 'no-token', 'what-me', 'what-passkey', 'what-sign-in', 'what-code', 'what-devices', 'what-remove', 'what-sign-out', 'what-link-code', 'what-invite', 'what-take-name', 'what-usage', 'what-export', 'what-forget'],
} as const;

/** One of the page's words, `<section>.<key>` (`page-controls.send`). */
export type PageWordKey = KeyOf<typeof PAGE_WORD_KEYS>;
/** Every word the page says, in one language. */
export type PageWords = Readonly<Record<PageWordKey, string>>;
/** Some of them: a language short of a word, or the site's changes. */
export type SomePageWords = Partial<Record<PageWordKey, string>>;

/** Says one of the page's words, each `{name}` in it filled from `fill`. */
export type PageSay = (key: PageWordKey, fill?: Readonly<Record<string, string | number>>) => string;

/** Every full name, in catalogue order. */
export const ALL_PAGE_WORD_KEYS: readonly PageWordKey[] = keysOf(PAGE_WORD_KEYS);

/** The language every other one falls back to: its file holds every word. */
export const PAGE_FLOOR_LANGUAGE = 'en';

/** The page's words in a words file's text; the server's sections are passed over (the server checks them). */
export function parsePageWords(file: string, text: string): SomePageWords {
  return parseWords(PAGE_WORD_KEYS, file, text, 'skip');
}

/**
 * The words in `language`: English under everything, then the language's base (`es` for `es-MX`),
 * then the language itself, from `shipped` (by language); `site` (the site's, as the server laid
 * them) over all. A word no file has is said as its name, which a test keeps from happening.
 */
export function pageWordsIn(shipped: ReadonlyMap<string, SomePageWords>, language: string, site?: SomePageWords): PageWords {
  const floor = Object.fromEntries(ALL_PAGE_WORD_KEYS.map((key) => [key, key])) as Record<PageWordKey, string>;
  const base = language.split('-')[0] ?? language;
  return layered<PageWordKey>(floor, shipped.get(PAGE_FLOOR_LANGUAGE), base === language ? undefined : shipped.get(base), shipped.get(language), site);
}

/** How `words` are said: a number filled in is written as the page's digits. */
export function sayer(words: PageWords): PageSay {
  return (key, fill = {}) => filledIn(words[key], Object.fromEntries(Object.entries(fill).map(([name, value]) => [name, String(value)])));
}
