/**
 * Who a passkey is made for and signed in to: the relying party is the origin the page is on — the
 * server's own, or one of `CONFAB_ALLOWED_ORIGINS` — as the request's `Origin` names it (the origin
 * rule, server/guard.ts, has refused every other before a route runs); its id is that origin's host
 * name. WebAuthn refuses an address as that id, and wants a secure context (https, or localhost):
 * a ceremony asked from 127.0.0.1 is told to open localhost instead, and one from an address or a
 * plain-http name elsewhere that the site needs a name and HTTPS.
 */
import type { Context } from 'hono';
import { isLoopbackName } from '../guard';
import { refusal } from '../words/requestWords';

export interface RelyingParty {
  /** The RP ID: the origin's host name (`localhost`, `confab.example`). */
  id: string;
  /** The origin the browser's ceremony must have run on, as `URL.origin` spells it. */
  origin: string;
}

/** An IPv4 address, or IPv6 (a host name with a colon in it, bracketed or not). */
const ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-f:.]*:[0-9a-f:.]*\]?)$/i;

/**
 * The origin the request comes from: its `Origin`, else the server's own by scheme and Host (a client
 * that is no page names none), else the URL it was made for, where a Host header is no host at all.
 */
export function originOf(c: Context): string {
  const url = new URL(c.req.url);
  const given = c.req.header('origin') ?? `${url.protocol}//${c.req.header('host') ?? url.host}`;
  return URL.canParse(given) ? new URL(given).origin : url.origin;
}

/** The relying party of `c`'s request, or a refusal saying where passkeys work. */
export function relyingParty(c: Context): RelyingParty {
  const origin = new URL(originOf(c));
  const id = origin.hostname.toLowerCase();
  const address = ADDRESS.test(id);
  if (address && isLoopbackName(id)) {
    throw refusal(c, 400, 'devices.open-localhost', { url: `${origin.protocol}//localhost${origin.port === '' ? '' : `:${origin.port}`}/` });
  }
  const local = id === 'localhost' || id.endsWith('.localhost');
  if (address || (origin.protocol !== 'https:' && !local)) throw refusal(c, 400, 'devices.needs-https', { origin: origin.origin });
  return { id, origin: origin.origin };
}

/**
 * Where a page visit to a loopback address goes instead: the same path on `localhost` and the same
 * port, where passkeys work; undefined for any other host.
 */
export function localhostPageUrl(c: Context): string | undefined {
  const url = new URL(c.req.url);
  const named = `${url.protocol}//${c.req.header('host') ?? url.host}`;
  const host = URL.canParse(named) ? new URL(named) : url;
  if (!ADDRESS.test(host.hostname) || !isLoopbackName(host.hostname)) return undefined;
  return `${url.protocol}//localhost${host.port === '' ? '' : `:${host.port}`}${url.pathname}${url.search}`;
}
