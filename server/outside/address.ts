/**
 * Where an outside app's calls may go. The site's credentials leave the server only for the address
 * the app file names, and never, unless the file says `private: true`, for this machine or a
 * private network: a name is resolved and every address it has is checked before each request —
 * loopback (127.0.0.0/8, ::1), private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
 * (169.254/16, fe80::/10: the cloud's metadata service among them), carrier-grade NAT (100.64/10)
 * and the unspecified address (0.0.0.0, ::) — and no redirect is followed, so an answer cannot
 * send the next request elsewhere.
 *
 * A name checked here is resolved again by the request itself; a name server that answers a
 * public address to the check and a private one to the request a moment later (DNS rebinding)
 * is not caught. The file's `private: true` is the only way to reach an address on purpose.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Every address `host` resolves to (`dns.lookup` with `all: true` by default). */
export type Lookup = (host: string) => Promise<readonly string[]>;

export const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((found) => found.address);

/** A call refused before it left: the address is this machine's or a private network's. */
export class PrivateAddressError extends Error {
  override readonly name = 'PrivateAddressError';
}

/** Whether `address` (an IPv4 or IPv6 literal) is loopback, private, link-local, CGNAT or unspecified. */
function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(bare) === 4) return privateV4(bare);
  if (isIP(bare) !== 6) return false;
  // An IPv4 address inside IPv6 (::ffff:10.0.0.1, ::ffff:a00:1) is judged as the IPv4 one.
  const mapped = /^(?:0*:)*:?ffff:(.+)$/.exec(bare)?.[1];
  if (mapped !== undefined) {
    if (isIP(mapped) === 4) return privateV4(mapped);
    const [high, low] = mapped.split(':').map((part) => parseInt(part, 16));
    if (high !== undefined && low !== undefined) return privateV4(`${String(high >> 8)}.${String(high & 255)}.${String(low >> 8)}.${String(low & 255)}`);
  }
  if (bare === '::' || bare === '::1') return true;
  const first = parseInt(bare.split(':')[0] || '0', 16);
  // fc00::/7 unique local, fe80::/10 link-local.
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

function privateV4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

/**
 * Throws a `PrivateAddressError` when `url`'s host is, or resolves to, an address `isPrivateAddress`
 * refuses; `app` names the app in the sentence, which never quotes the URL's path or query.
 */
async function checkAddress(url: URL, app: string, lookup: Lookup): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) === 0 ? await lookup(host) : [host];
  if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost') || addresses.some(isPrivateAddress)) {
    throw new PrivateAddressError(`The ${app} app's address (${url.host}) is on this machine or a private network; Confab calls such an address only when the app file says \`private: true\`.`);
  }
}

/**
 * `base` as the fetch an outside app uses: no redirect followed (a 3xx is answered as it is), and,
 * unless `allowPrivate`, an address check before each request.
 */
export function guardedFetch(base: typeof fetch, app: string, allowPrivate: boolean, lookup: Lookup): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!allowPrivate) await checkAddress(url, app, lookup);
    return base(input, { ...init, redirect: 'manual' });
  };
}

/** `url` as it may be shown where anyone can read it: its origin and path, never a user name, a password or a query. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an address that does not parse)';
  }
}
