/**
 * What a turn's headers say besides its id (`turnId.ts`): the page's conversation key and the
 * person's time zone. Each is read leniently: a malformed one is as good as none.
 */

const CONVERSATION_KEY = /^[A-Za-z0-9:_-]{1,128}$/;

/** The page's conversation key, when it is well formed. */
export function conversationKeyOf(header: string | undefined): string | undefined {
  return header !== undefined && CONVERSATION_KEY.test(header) ? header : undefined;
}

/**
 * An IANA time zone the runtime knows, as it names it, or `UTC`. Asked of `Intl` every turn and
 * kept nowhere: a cache keyed by what the page sent grew with every case spelling of a zone.
 */
export function timeZoneOf(header: string | undefined): string {
  if (header === undefined || header === '' || header.length > 64) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en', { timeZone: header }).resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}
