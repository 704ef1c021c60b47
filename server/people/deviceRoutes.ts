/**
 * A person's devices, under their session:
 *
 * - `GET /api/me`: who this device is (`Me`).
 * - `GET /api/devices`: their passkeys and signed-in devices; `DELETE /api/devices/passkeys/<id>` and
 *   `DELETE /api/devices/sessions/<id>` remove one of theirs (204). A removed device is signed out
 *   at its next request; removing this one signs it out now.
 * - `POST /api/devices/link-code`: a code another device enters to become this person, valid five
 *   minutes and once; `POST /api/devices/link {code}` is that other device entering it. Wrong codes
 *   are counted per client, over every instance (`linkTries.ts`).
 * - `POST /api/sign-out`: this device forgets the person (its session and both cookies; 204).
 */
import { Hono } from 'hono';
import type { DeviceListed, Devices, LinkCode, Me, PasskeyListed } from '../../common/people';
import { iso } from '../db/rows';
import { readJson, text } from '../json';
import { clientAddress, dropDeviceCookies } from '../person';
import type { PersonEnv } from '../person';
import { refusal, requestWordsOf } from '../words/requestWords';
import { waitWords } from '../words/refusalWords';
import { say } from '../words/words';
import { endSession, sessionsOf } from './deviceSessions';
import { keepLinkCode, takeLinkCode } from './linkCodes';
import { linkTryRoom, wrongLinkTry } from './linkTries';
import { passkeysOf, removePasskey } from './passkeys';
import { findPerson } from './people';
import { originOf } from './relyingParty';
import { linkCodeRead, linkCodeShown, newLinkCode, sha256Hex } from './secrets';
import { beginDeviceSession, meOf, signedIn } from './signIn';
import type { PeopleDeps } from './signIn';

/** How long a link code works, in ms: five minutes. */
export const LINK_CODE_MS = 5 * 60_000;
/** Longest `code` read, in characters: a code typed with spaces to spare. */
const CODE_FIELD_MAX_CHARS = 32;

export function deviceRoutes({ db, clock }: PeopleDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();

  routes.get('/me', async (c) => c.json<Me>(await meOf(db, c)));

  routes.get('/devices', async (c) => {
    const person = c.get('person');
    if (c.get('personKind') !== 'passkey') return c.json<Devices>({ passkeys: [], devices: [], owner: false });
    const [passkeys, sessions, row] = await db.readAsServer((reader) => Promise.all([passkeysOf(reader, person), sessionsOf(reader, person), findPerson(reader, person)]));
    const here = c.get('deviceSession');
    return c.json<Devices>({
      passkeys: passkeys.map(
        (passkey): PasskeyListed => ({
          id: passkey.id,
          label: passkey.label,
          synced: passkey.deviceType === 'multiDevice',
          createdAt: iso(passkey.createdAtMs),
          lastUsedAt: passkey.lastUsedAtMs === null ? null : iso(passkey.lastUsedAtMs),
        }),
      ),
      devices: sessions.map(
        (session): DeviceListed => ({
          id: session.id,
          label: session.label,
          via: session.via,
          createdAt: iso(session.createdAtMs),
          seenAt: iso(session.seenAtMs),
          thisDevice: session.id === here,
        }),
      ),
      owner: row?.owner ?? false,
    });
  });

  routes.delete('/devices/passkeys/:id', async (c) => {
    const removed = await db.asServer((tx) => removePasskey(tx, c.get('person'), c.req.param('id')));
    if (!removed) throw refusal(c, 404, 'devices.no-passkey');
    return c.body(null, 204);
  });

  routes.delete('/devices/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const ended = await db.asServer((tx) => endSession(tx, c.get('person'), id));
    if (!ended) throw refusal(c, 404, 'devices.no-device');
    if (id === c.get('deviceSession')) dropDeviceCookies(c);
    return c.body(null, 204);
  });

  routes.post('/devices/link-code', async (c) => {
    if (c.get('personKind') !== 'passkey') throw refusal(c, 403, 'devices.keep-first');
    const nowMs = clock();
    const code = newLinkCode();
    const expiresAtMs = nowMs + LINK_CODE_MS;
    await db.asServer((tx) => keepLinkCode(tx, { hash: sha256Hex(code), person: c.get('person'), expiresAtMs, nowMs }));
    // Shown this once: nothing on the way may keep a copy.
    c.header('Cache-Control', 'no-store');
    return c.json<LinkCode>({ code: linkCodeShown(code), expiresAt: expiresAtMs, url: `${originOf(c)}/link#${linkCodeShown(code)}` });
  });

  routes.post('/devices/link', async (c) => {
    const typed = text(c, await readJson(c), 'code', { maxChars: CODE_FIELD_MAX_CHARS });
    const nowMs = clock();
    const client = clientAddress(c) ?? c.get('person');
    const code = linkCodeRead(typed);
    // The client's count is held while its code is taken: its tries at once are counted in turn.
    const outcome = await db.asServer(async (tx) => {
      const room = await linkTryRoom(tx, client, nowMs);
      if (!room.ok) return room;
      const kept = code === undefined ? undefined : await takeLinkCode(tx, sha256Hex(code));
      // A lapsed code is wrong too, and taken all the same: it is gone.
      if (kept === undefined || kept.expiresAtMs <= nowMs) {
        await wrongLinkTry(tx, client, nowMs);
        return kept === undefined ? 'unknown' : 'expired';
      }
      return beginDeviceSession(tx, c, kept.person, 'link', nowMs);
    });
    if (outcome === 'unknown' || outcome === 'expired') throw refusal(c, 400, outcome === 'unknown' ? 'devices.link-unknown' : 'devices.link-expired');
    if ('ok' in outcome) {
      const wait = waitWords(outcome.retryAfterMs, requestWordsOf(c));
      return c.json({ error: say(requestWordsOf(c), 'devices.link-tries', { wait }) }, 429, { 'retry-after': String(Math.ceil(outcome.retryAfterMs / 1000)) });
    }
    signedIn(c, outcome, nowMs);
    return c.json<Me>(await meOf(db, c));
  });

  routes.post('/sign-out', async (c) => {
    const session = c.get('deviceSession');
    // A bare cookie person signed out would be nobody's, and all they have with them.
    if (session === undefined) throw refusal(c, 409, 'devices.not-signed-in');
    await db.asServer((tx) => endSession(tx, c.get('person'), session));
    dropDeviceCookies(c);
    return c.body(null, 204);
  });

  return routes;
}
