/**
 * Who a bot is for, and who may have it make work that outlives a turn: its file's `for:` and
 * `work:`, read at start, and the one admission that decides both (`admits`). Every way to a bot
 * asks it — `POST /api/start` before any grant is minted, the bots' listing and the bot's own
 * routes (`session.ts`), an MCP token's bots when it is made and each time it is used — and so does
 * every start of a schedule or a long run (`runService.ts`, through the `tasks` app).
 *
 * ```yaml
 * for: anyone            # default: whoever opens the page, a bare browser cookie included
 * for: people            # a person who keeps Confab on their devices (a passkey) or signed in with Supabase
 * for: owner             # the server's owner: its first passkey person
 * for: [ana, ben, owner] # the people the owner named (and, written so, the owner)
 * work: people           # default: only people may make schedules and long runs; `anyone` lets a cookie
 * ```
 */
import { PERSON_NAME_MAX_CHARS } from '../common/people';
import { BotFileError, describe, list } from './botFields';
import type { PersonKind } from './person';
import type { WordKey } from './words/words';

/** Who may reach a bot, or make work with it. */
export type Audience =
  | { to: 'anyone' }
  | { to: 'people' }
  | { to: 'owner' }
  /** The people the owner named (`people.name`), and the owner when the list says `owner`. */
  | { to: 'named'; names: readonly string[]; owner: boolean };

/** Who is asking, as the server established it: never a value taken from a request body. */
export interface Asker {
  kind: PersonKind;
  /** Whether they own the server (`people.owner`). */
  owner: boolean;
  /** The name the owner gave them (`people.name`), or null. */
  name: string | null;
}

export const ANYONE: Audience = Object.freeze({ to: 'anyone' });
const PEOPLE: Audience = Object.freeze({ to: 'people' });

/**
 * Whether `audience` admits `asker`. Pure. A bare cookie is a browser, not a person who can come
 * back on another device or be named, so it is admitted only where anyone is.
 */
export function admits(audience: Audience, asker: Asker): boolean {
  if (audience.to === 'anyone') return true;
  if (asker.kind === 'cookie') return false;
  if (audience.to === 'people') return true;
  if (audience.to === 'owner') return asker.owner;
  return (audience.owner && asker.owner) || (asker.name !== null && audience.names.includes(asker.name));
}

/** Whether deciding for a person of `kind` needs their `people` row (owner, name), so it is read only then. */
export function needsPeopleRow(audience: Audience, kind: PersonKind): boolean {
  return kind !== 'cookie' && (audience.to === 'owner' || audience.to === 'named');
}

/** The sentence a person `audience` does not admit is told (`## audience`): who the bot is for, naming nobody. */
export function refusedFor(audience: Audience): WordKey {
  if (audience.to === 'owner') return 'audience.for-owner';
  if (audience.to === 'named') return 'audience.for-named';
  return 'audience.for-people';
}

/** A name as `people.name` keeps it: lower-case, 1 to 40 characters, and no spaces (a list is written with them). */
const isName = (name: string) => name.length <= PERSON_NAME_MAX_CHARS && name === name.toLowerCase() && !/\s/.test(name);

/**
 * A bot file's `for:` (any audience; default anyone) or `work:` (people or anyone; default people).
 * Throws `BotFileError` naming the file and the field.
 */
export function readAudience(file: string, field: 'for' | 'work', value: unknown): Audience {
  if (value === undefined) return field === 'for' ? ANYONE : PEOPLE;
  const words = field === 'for' ? ['anyone', 'people', 'owner'] : ['anyone', 'people'];
  if (typeof value === 'string' && words.includes(value)) return { to: value as 'anyone' | 'people' | 'owner' };
  if (field === 'work' || !Array.isArray(value)) {
    const accepted = field === 'for' ? 'anyone, people, owner, or a list of names ([ana, ben])' : 'people (the default: a passkey or Supabase person) or anyone (a bare browser cookie too)';
    throw new BotFileError(file, field, `is ${describe(value)}; it must be ${accepted}.`);
  }
  const names = list(file, field, value) ?? [];
  const unnamed = names.find((name) => name !== 'owner' && (!isName(name) || name === 'anyone' || name === 'people'));
  if (unnamed !== undefined) {
    throw new BotFileError(file, field, `lists "${unnamed}"; a name is the one the owner gave a person: lower-case, 1 to ${String(PERSON_NAME_MAX_CHARS)} characters, no spaces (write owner in the list for the owner).`);
  }
  return { to: 'named', names: names.filter((name) => name !== 'owner'), owner: names.includes('owner') };
}
