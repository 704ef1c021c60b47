/**
 * Where an outside app's calls may go. The site's credentials leave the server only for the address
 * the app file names, and never, unless the file says `private: true`, for this machine or a
 * private network: a name is resolved and every address it has is checked before each request —
 * loopback (127.0.0.0/8, ::1), private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
 * (169.254/16, fe80::/10: the cloud's metadata service among them), carrier-grade NAT (100.64/10)
 * and the unspecified address (0.0.0.0, ::) — and no redirect is followed, so an answer cannot
 * send the next request elsewhere.
 *
 * The request resolves the name once more as it connects, and that answer is checked too: the
 * address checked is the address connected to, so a name server that answers a public address
 * first and a private one a moment later (DNS rebinding) is refused as well. The file's
 * `private: true` is the only way to reach an address on purpose.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';

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

/** The refusal of `host`, which resolves to `addresses`, or undefined when none of them is private. */
function refusalOf(host: string, addresses: readonly string[], shownHost: string, app: string): PrivateAddressError | undefined {
  const name = host.toLowerCase();
  if (name !== 'localhost' && !name.endsWith('.localhost') && !addresses.some(isPrivateAddress)) return undefined;
  return new PrivateAddressError(`The ${app} app's address (${shownHost}) is on this machine or a private network; Confab calls such an address only when the app file says \`private: true\`.`);
}

/**
 * Throws a `PrivateAddressError` when `url`'s host is, or resolves to, an address `isPrivateAddress`
 * refuses; `app` names the app in the sentence, which never quotes the URL's path or query.
 */
async function checkAddress(url: URL, app: string, lookup: Lookup): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refused = refusalOf(host, isIP(host) === 0 ? await lookup(host) : [host], url.host, app);
  if (refused !== undefined) throw refused;
}

/**
 * The lookup every connection of the app makes: its host resolved through `lookup` and refused when
 * any address is private, else connected to the addresses just checked. A literal address needs no
 * lookup, and `checkAddress` has judged it.
 */
function checkingLookup(app: string, lookup: Lookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (addresses) => {
        const refused = refusalOf(hostname, addresses, hostname, app);
        const found = addresses.map((address) => ({ address, family: isIP(address) }));
        const [first] = found;
        if (refused !== undefined) callback(refused, '', 0);
        else if (first === undefined) callback(Object.assign(new Error(`${hostname} has no address.`), { code: 'ENOTFOUND' }), '', 0);
        else if (options.all === true) (callback as unknown as (error: null, all: typeof found) => void)(null, found);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), '', 0);
      },
    );
  };
}

/**
 * undici's fetch, as the global fetch's type, with connections opened by `dispatcher` (undici's
 * own Agent, whose lookup is `checkingLookup`) when one is given.
 */
function fetchOver(dispatcher: Agent | undefined): typeof fetch {
  const send = undiciFetch as unknown as (input: unknown, init: unknown) => Promise<Response>;
  return (input, init) => send(input, dispatcher === undefined ? init : { ...init, dispatcher });
}

/**
 * A fetch for an outside app: no redirect followed (a 3xx is answered as it is), and, unless
 * `allowPrivate`, an address check before each request and again on each connection it opens.
 * `base` stands in for the network (tests); without it the calls go out through undici.
 */
export function guardedFetch(base: typeof fetch | undefined, app: string, allowPrivate: boolean, lookup: Lookup): typeof fetch {
  if (allowPrivate) {
    const send = base ?? fetchOver(undefined);
    return (input, init) => send(input, { ...init, redirect: 'manual' });
  }
  const send = base ?? fetchOver(new Agent({ connect: { lookup: checkingLookup(app, lookup) } }));
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    await checkAddress(url, app, lookup);
    try {
      return await send(input, { ...init, redirect: 'manual' });
    } catch (error) {
      // undici says "fetch failed" with the refusal as its cause: the refusal is the sentence.
      throw causeOf(error, PrivateAddressError) ?? error;
    }
  };
}

/** The first `type` in `error`'s chain of causes (a few deep), if any. */
export function causeOf<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth += 1) if (at instanceof type) return at;
  return undefined;
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
