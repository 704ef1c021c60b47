/**
 * The page's calls for a person on every device (common/people.ts): who this device is, the
 * passkey ceremonies' two halves, link codes, devices, the owner's name links, what the person's
 * talk has cost, the file of everything they have, and forgetting them. Every answer is checked
 * for the shape the views rely on. A refusal is the server's own sentence, shown as it is.
 */
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { isRecord } from '../../common/isRecord';
import type { DeviceListed, Devices, LinkCode, Me, NameInvite, PasskeyListed, SpanUse, Usage, WindowUse } from '../../common/people';
import { httpClient, unreadableAnswer } from './http';
import type { Say } from './http';
import { sayWord } from './words';

export interface PeopleApi {
  /** `GET /api/me`. */
  me(): Promise<Me>;
  /** `POST /api/passkeys/register/options`: what the browser needs to make a passkey for this person. */
  registerOptions(): Promise<PublicKeyCredentialCreationOptionsJSON>;
  /** `POST /api/passkeys/register/verify`: the passkey made, kept. */
  registerVerify(response: RegistrationResponseJSON): Promise<Me>;
  /** `POST /api/passkeys/sign-in/options`. */
  signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /** `POST /api/passkeys/sign-in/verify`: this device becomes the passkey's person. */
  signInVerify(response: AuthenticationResponseJSON): Promise<Me>;
  /** `POST /api/devices/link-code`: a code another device enters to be this person. */
  linkCode(): Promise<LinkCode>;
  /** `POST /api/devices/link`: this device becomes the person who showed `code`. */
  link(code: string): Promise<Me>;
  /** `GET /api/devices`. */
  devices(): Promise<Devices>;
  removePasskey(id: string): Promise<void>;
  removeDevice(id: string): Promise<void>;
  /** `POST /api/sign-out`: this device only. */
  signOut(): Promise<void>;
  /** `POST /api/owner/invites`: the owner names somebody by a link. */
  nameInvite(name: string): Promise<NameInvite>;
  /** `POST /api/invites/accept`: the name link's token, taken by this person. */
  acceptInvite(token: string): Promise<Me>;
  /** `GET /api/me/usage`, the spans counted in `zone` (an IANA time zone). */
  usage(zone: string): Promise<Usage>;
  /** `GET /api/me/export`: everything the person has, as the file. */
  exportFile(): Promise<Blob>;
  /** `POST /api/me/forget`, confirmed by the bot's name as typed. */
  forget(confirm: string, bot: string): Promise<void>;
}

/** What the server says it refused is said as it is; the rest in the page's words. */
const say: Say = (what, trouble) => {
  switch (trouble.kind) {
    case 'unreachable':
      return sayWord('page-server.unreachable', { what });
    case 'answered':
      return trouble.said ?? sayWord('page-server.refused-status', { what, status: trouble.status });
    case 'not-json':
    case 'misshapen':
      return unreadableAnswer(what, trouble.kind);
  }
};

/** The API over `fetcher` (the session's fetch: the access token added in Supabase mode). */
export function peopleApi(fetcher?: typeof fetch): PeopleApi {
  const http = httpClient(say, fetcher);
  const me = (what: string, path: string, body: unknown) => http.json(what, path, { method: 'POST', body }, isMe);
  return {
    me: () => http.json(sayWord('page-people.what-me'), '/api/me', {}, isMe),
    registerOptions: () => http.json(sayWord('page-people.what-passkey'), '/api/passkeys/register/options', { method: 'POST', body: {} }, isCreationOptions),
    registerVerify: (response) => me(sayWord('page-people.what-passkey'), '/api/passkeys/register/verify', { response }),
    signInOptions: () => http.json(sayWord('page-people.what-sign-in'), '/api/passkeys/sign-in/options', { method: 'POST', body: {} }, isRequestOptions),
    signInVerify: (response) => me(sayWord('page-people.what-sign-in'), '/api/passkeys/sign-in/verify', { response }),
    linkCode: () => http.json(sayWord('page-people.what-link-code'), '/api/devices/link-code', { method: 'POST', body: {} }, isLinkCode),
    link: (code) => me(sayWord('page-people.what-code'), '/api/devices/link', { code }),
    devices: () => http.json(sayWord('page-people.what-devices'), '/api/devices', {}, isDevices),
    async removePasskey(id) {
      await http.json(sayWord('page-people.what-remove'), `/api/devices/passkeys/${encodeURIComponent(id)}`, { method: 'DELETE' });
    },
    async removeDevice(id) {
      await http.json(sayWord('page-people.what-remove'), `/api/devices/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
    },
    async signOut() {
      await http.json(sayWord('page-people.what-sign-out'), '/api/sign-out', { method: 'POST', body: {} });
    },
    nameInvite: (name) => http.json(sayWord('page-people.what-invite'), '/api/owner/invites', { method: 'POST', body: { name } }, isNameInvite),
    acceptInvite: (token) => me(sayWord('page-people.what-take-name'), '/api/invites/accept', { token }),
    usage: (zone) => http.json(sayWord('page-people.what-usage'), `/api/me/usage?zone=${encodeURIComponent(zone)}`, {}, isUsage),
    async exportFile() {
      const everything = await http.json(sayWord('page-people.what-export'), '/api/me/export');
      return new Blob([JSON.stringify(everything, null, 2)], { type: 'application/json' });
    },
    async forget(confirm, bot) {
      await http.json(sayWord('page-people.what-forget'), '/api/me/forget', { method: 'POST', body: { confirm, bot } });
    },
  };
}

const isDate = (value: unknown) => typeof value === 'string';
const isDateOrNull = (value: unknown) => value === null || typeof value === 'string';
const isCount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isCountOrNull = (value: unknown) => value === null || isCount(value);
const WINDOWS: readonly unknown[] = ['perMinute', 'perHour', 'perDay', 'perWeek', 'perMonth'];

function isMe(value: unknown): value is Me {
  return isRecord(value) && (value.kind === 'cookie' || value.kind === 'passkey' || value.kind === 'supabase') && typeof value.owner === 'boolean' && (value.name === null || typeof value.name === 'string');
}

/** Creation or request options, as the server's library makes them: the browser's library checks the rest. */
function isCreationOptions(value: unknown): value is PublicKeyCredentialCreationOptionsJSON {
  return isRecord(value) && typeof value.challenge === 'string' && isRecord(value.rp) && isRecord(value.user);
}

function isRequestOptions(value: unknown): value is PublicKeyCredentialRequestOptionsJSON {
  return isRecord(value) && typeof value.challenge === 'string';
}

function isLinkCode(value: unknown): value is LinkCode {
  return isRecord(value) && typeof value.code === 'string' && isCount(value.expiresAt) && typeof value.url === 'string';
}

function isNameInvite(value: unknown): value is NameInvite {
  return isRecord(value) && typeof value.url === 'string' && isCount(value.expiresAt);
}

function isPasskey(value: unknown): value is PasskeyListed {
  return isRecord(value) && typeof value.id === 'string' && typeof value.label === 'string' && typeof value.synced === 'boolean' && isDate(value.createdAt) && isDateOrNull(value.lastUsedAt);
}

function isDevice(value: unknown): value is DeviceListed {
  return isRecord(value) && typeof value.id === 'string' && typeof value.label === 'string' && (value.via === 'passkey' || value.via === 'link') && isDate(value.createdAt) && isDate(value.seenAt) && typeof value.thisDevice === 'boolean';
}

function isDevices(value: unknown): value is Devices {
  return isRecord(value) && Array.isArray(value.passkeys) && value.passkeys.every(isPasskey) && Array.isArray(value.devices) && value.devices.every(isDevice) && typeof value.owner === 'boolean';
}

function isSpan(value: unknown): value is SpanUse {
  return isRecord(value) && isCount(value.answers) && isCount(value.spent);
}

function isWindow(value: unknown): value is WindowUse {
  return isRecord(value) && WINDOWS.includes(value.window) && isCount(value.answers) && isCountOrNull(value.answersLimit) && isCount(value.spent) && isCountOrNull(value.spendLimit) && isCountOrNull(value.freesAt);
}

function isUsage(value: unknown): value is Usage {
  return (
    isRecord(value) &&
    Array.isArray(value.bots) &&
    value.bots.every((bot) => isRecord(bot) && typeof bot.bot === 'string' && typeof bot.name === 'string' && isSpan(bot.today) && isSpan(bot.thisMonth) && Array.isArray(bot.windows) && bot.windows.every(isWindow))
  );
}
