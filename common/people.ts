/**
 * A person on every device, as the server and the page say it to each other (docs/operating.md,
 * "People and devices"). On the embedded default a person starts as a browser cookie; a passkey
 * makes them a person any of their devices can be, each device holding a session of theirs. Dates
 * are ISO 8601; times in ms since the epoch are named `…At` with a number.
 */

/** How the asking device knows its person: a bare cookie, a passkey person's session, or Supabase. */
export type PersonKind = 'cookie' | 'passkey' | 'supabase';

/** Set (to `1`) on the answer to a device whose session is gone: it is a new bare cookie person now. */
export const SIGNED_OUT_HEADER = 'x-confab-signed-out';

/** `GET /api/me`: who this device is. */
export interface Me {
  kind: PersonKind;
  /** Whether this person owns the server (the first passkey person on it). */
  owner: boolean;
  /** The name the owner gave this person, which a bot's `for:` may list; null when none. */
  name: string | null;
}

/** A passkey of the person's, as Devices lists it. */
export interface PasskeyListed {
  id: string;
  /** What made it, as a person names it ("Chrome on Linux"). */
  label: string;
  /** Whether it syncs across the person's devices (a synced passkey). */
  synced: boolean;
  createdAt: string;
  lastUsedAt: string | null;
}

/** A device signed in as the person, as Devices lists it. */
export interface DeviceListed {
  id: string;
  /** The browser, as a person names it ("Firefox on Android"). */
  label: string;
  /** How it became theirs: a passkey, or a code from another device. */
  via: 'passkey' | 'link';
  createdAt: string;
  seenAt: string;
  /** The device asking. */
  thisDevice: boolean;
}

/** `GET /api/devices`. */
export interface Devices {
  passkeys: PasskeyListed[];
  devices: DeviceListed[];
  owner: boolean;
}

/** `POST /api/devices/link-code`: a code another device enters to become this person. */
export interface LinkCode {
  /** Eight letters and digits from an alphabet with no look-alikes, shown as `ABCD-EFGH`. */
  code: string;
  /** When it stops working, ms since the epoch: five minutes after it was made. */
  expiresAt: number;
  /** The page that takes it, for the QR a phone's camera reads: `<origin>/link#<code>`. */
  url: string;
}

/** `POST /api/owner/invites {name}` (the owner only): a link that gives whoever opens it once that name. */
export interface NameInvite {
  url: string;
  expiresAt: number;
}

/** One of a bot's rolling windows (`limits:` in its file) as the person has used it. */
export interface WindowUse {
  /** The bot file's name for it: perMinute, perHour, perDay, perWeek or perMonth. */
  window: 'perMinute' | 'perHour' | 'perDay' | 'perWeek' | 'perMonth';
  answers: number;
  /** Most answers the window allows; null when it caps none. */
  answersLimit: number | null;
  /** US dollars, spent and held, as the ledger counts them. */
  spent: number;
  spendLimit: number | null;
  /** When enough of the window frees up for one more answer, ms since the epoch; null while it has room. */
  freesAt: number | null;
}

/** What the person had from one bot in a span of the calendar, in their own time zone. */
export interface SpanUse {
  answers: number;
  /** US dollars. */
  spent: number;
}

/** `GET /api/me/usage?zone=<IANA zone>`: what the person's talk has cost, per bot, from the ledger. */
export interface Usage {
  bots: { bot: string; name: string; today: SpanUse; thisMonth: SpanUse; windows: WindowUse[] }[];
}

/** The file `GET /api/me/export` downloads: everything the person has, one JSON document. */
export const EXPORT_FILE_NAME = 'confab-export.json';

/** Longest name the owner may give a person, in characters. */
export const PERSON_NAME_MAX_CHARS = 40;
