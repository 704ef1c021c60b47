/**
 * Names the owner gives: `POST /api/owner/invites {name}` (the owner only) makes a link that gives
 * whoever opens it once that name, for a week; `POST /api/invites/accept {token}` is a passkey person
 * opening it. A bot's `for:` may list the name. The token is 256 random bits, kept as its hash.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Me, NameInvite } from '../../common/people';
import { PERSON_NAME_MAX_CHARS } from '../../common/people';
import { readJson, text } from '../json';
import type { PersonEnv } from '../person';
import { refusal } from '../words/requestWords';
import { keepInvite, takeInvite } from './nameInvites';
import { findPerson, givePersonName, nameHeld } from './people';
import { originOf } from './relyingParty';
import { newSecret, sha256Hex } from './secrets';
import { meOf } from './signIn';
import type { PeopleDeps } from './signIn';

/** How long an invitation works, in ms: a week. */
export const INVITE_MS = 7 * 24 * 60 * 60_000;
/** Longest `token` read, in characters (a token is 43). */
const TOKEN_FIELD_MAX_CHARS = 64;
/**
 * A name: lower-case letters and digits of any script, with spaces, dots, dashes, underscores or
 * apostrophes between them — what a bot file's `for:` list can hold as it is — and at most
 * `PERSON_NAME_MAX_CHARS` of them.
 */
const NAME = new RegExp(`^[\\p{Ll}\\p{Lo}\\p{N}](?:[\\p{Ll}\\p{Lo}\\p{N}._'-]{0,${PERSON_NAME_MAX_CHARS - 2}}[\\p{Ll}\\p{Lo}\\p{N}])?$`, 'u');

export function inviteRoutes({ db, clock }: PeopleDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();

  routes.post('/owner/invites', async (c) => {
    const name = nameOf(c, text(c, await readJson(c), 'name', { maxChars: 4 * PERSON_NAME_MAX_CHARS }));
    const person = c.get('person');
    const asking = c.get('personKind') === 'passkey' ? await db.readAsServer((reader) => findPerson(reader, person)) : undefined;
    if (asking?.owner !== true) throw refusal(c, 403, 'devices.owner-only');
    if (await db.readAsServer((reader) => nameHeld(reader, name))) throw refusal(c, 409, 'devices.name-taken', { name });
    const nowMs = clock();
    const token = newSecret();
    const expiresAtMs = nowMs + INVITE_MS;
    await db.asServer((tx) => keepInvite(tx, { hash: sha256Hex(token), name, madeBy: person, expiresAtMs, nowMs }));
    // Shown this once: nothing on the way may keep a copy.
    c.header('Cache-Control', 'no-store');
    return c.json<NameInvite>({ url: `${originOf(c)}/invite#${token}`, expiresAt: expiresAtMs }, 201);
  });

  routes.post('/invites/accept', async (c) => {
    const token = text(c, await readJson(c), 'token', { maxChars: TOKEN_FIELD_MAX_CHARS });
    if (c.get('personKind') !== 'passkey') throw refusal(c, 403, 'devices.keep-first');
    const person = c.get('person');
    const nowMs = clock();
    const outcome = await db.asServer(async (tx) => {
      const invite = await takeInvite(tx, sha256Hex(token));
      if (invite === undefined) return 'unknown';
      if (invite.expiresAtMs <= nowMs) return 'expired';
      return { name: invite.name, given: await givePersonName(tx, person, invite.name) };
    });
    if (outcome === 'unknown') throw refusal(c, 400, 'devices.invite-unknown');
    if (outcome === 'expired') throw refusal(c, 400, 'devices.invite-expired');
    if (!outcome.given) throw refusal(c, 409, 'devices.name-taken', { name: outcome.name });
    return c.json<Me>(await meOf(db, c));
  });

  return routes;
}

/** The name a body gives, lower-cased, or a refusal saying what a name may be. */
function nameOf(c: Context, given: string): string {
  const name = given.trim().toLowerCase();
  if (!NAME.test(name)) throw refusal(c, 400, 'devices.name-format', { most: String(PERSON_NAME_MAX_CHARS) });
  return name;
}
