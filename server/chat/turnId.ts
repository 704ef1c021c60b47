/**
 * A turn's id: the page gives each turn one when the person finishes speaking or presses Send, and
 * sends it as `x-confab-turn` with every try of that turn (a dropped connection, a reload mid-turn);
 * anything said again is a new turn with a new id. Other clients may send the standard
 * `Idempotency-Key` header instead (a structured-field string, so quoted or bare). A request with
 * neither is a turn of its own: it gets a fresh random id, so nothing it writes is ever a replay.
 *
 * Every write's key is derived from the turn's key (`turnKeyOf`) and the call (`callKeyOf`); the
 * model never sees either.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ChatRequestError } from './errors';
import { say } from '../words/words';
import type { Words } from '../words/words';

/** The page's header for a turn's id. */
export const TURN_HEADER = 'x-confab-turn';
/** The standard header other clients may send instead. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** A turn's id: 16–128 letters, digits, `-`, `_`, `.` or `:` (a UUID works). */
const TURN_ID = /^[A-Za-z0-9_.:-]{16,128}$/;

/**
 * The turn's id from its headers; a fresh random one when neither is sent. Throws a 400
 * `ChatRequestError`, said in `words`, for a malformed one, or for both sent naming different turns.
 */
export function turnIdOf(turnHeader: string | undefined, idempotencyHeader: string | undefined, words: Words): string {
  const fromTurn = checked(TURN_HEADER, turnHeader, words);
  const fromKey = checked('Idempotency-Key', idempotencyHeader === undefined ? undefined : unquoted(idempotencyHeader.trim()), words);
  if (fromTurn !== undefined && fromKey !== undefined && fromTurn !== fromKey) {
    throw new ChatRequestError(say(words, 'requests.turn-ids-differ', { header: TURN_HEADER }), null);
  }
  return fromTurn ?? fromKey ?? randomUUID();
}

function checked(header: string, value: string | undefined, words: Words): string | undefined {
  if (value === undefined) return undefined;
  if (!TURN_ID.test(value)) throw new ChatRequestError(say(words, 'requests.turn-id', { header }), null);
  return value;
}

/** An RFC 8941 string (`"…"`) as its contents; anything else as it is. */
function unquoted(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/**
 * The turn key: the turn's id scoped by person, bot and conversation, so one person's id (or a
 * guessed one) can never reach another's recorded results.
 */
export function turnKeyOf(parts: { person: string; bot: string; conversationKey: string | undefined; turn: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([parts.person, parts.bot, parts.conversationKey ?? '', parts.turn]))
    .digest('hex');
}
