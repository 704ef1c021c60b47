/**
 * The page's routes, decided in one place for the page and the server alike: `/` is the entry,
 * `/voice/<bot>` a conversation with one bot, `/link` where another device's code is entered (the
 * code after `#`, so it never reaches the server's logs), `/invite` where a name the owner gave is
 * taken (its token after `#` too).
 */
export type Route = { page: 'home' } | { page: 'voice'; bot: string } | { page: 'link' } | { page: 'invite' } | { page: 'missing'; path: string };

/** A bot's slug as bot files are named: lower-case letters, digits and single dashes, 1–64 long. */
export const BOT_SLUG = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}$/;

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/' || path === '/index.html') return { page: 'home' };
  if (path === '/link') return { page: 'link' };
  if (path === '/invite') return { page: 'invite' };
  const voice = /^\/voice\/([^/]+)$/.exec(path);
  if (voice?.[1] !== undefined) {
    const bot = safeDecode(voice[1]).toLowerCase();
    if (BOT_SLUG.test(bot)) return { page: 'voice', bot };
  }
  return { page: 'missing', path };
}

/** Whether the server should answer this path with the entry page. */
export function isPageRoute(pathname: string): boolean {
  return parseRoute(pathname).page !== 'missing';
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
