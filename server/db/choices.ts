/**
 * Choices taken (migration 028): which of a line's choices the person took, once. Taking is one
 * insert under the line's key, so two pages pressing at once cannot both get through: the second
 * is answered with what the first took. Run these in the person's transaction (`asPerson`).
 */
import { isChoices } from '../../common/conversation/choices';
import type { Queryable } from './queryable';
import { isUuid, jsonOf } from './rows';

/** What taking a choice came to. */
export type Taking =
  /** Taken: the words the choice says, and where its offer was made. */
  | { outcome: 'taken'; words: string; threadId: string; bot: string }
  /** Another press took one first: `taken` is the one it took. */
  | { outcome: 'gone'; taken: number }
  /** The person has no such offer, or it has no such choice. */
  | { outcome: 'none' };

export interface Take {
  /** The transaction's person. */
  person: string;
  /** The id of the line that offers the choices. */
  offer: string;
  /** The index of the choice among them. */
  choice: number;
  /** Pressed, or said ("the second one"). */
  via: 'press' | 'voice';
}

/** Takes one choice of an offer, the first time only; the words are the offer's, never the caller's. */
export async function takeChoice(tx: Queryable, take: Take): Promise<Taking> {
  if (!isUuid(take.offer) || !Number.isSafeInteger(take.choice) || take.choice < 0) return { outcome: 'none' };
  const { rows } = await tx.query<{ choices: unknown; thread_id: string; bot: string }>(
    `select l.choices, l.thread_id, t.bot from lines l join threads t on t.id = l.thread_id
      where l.id = $1 and l.who = 'assistant' and l.choices is not null`,
    [take.offer],
  );
  const offer = rows[0];
  const choices = offer === undefined ? null : jsonOf(offer.choices);
  const words = isChoices(choices) ? choices.items[take.choice] : undefined;
  if (offer === undefined || words === undefined) return { outcome: 'none' };
  const taken = await tx.query<{ choice: number }>(
    `insert into choices (line_id, person, choice, via) values ($1, $2, $3, $4)
     on conflict (line_id) do nothing
     returning choice`,
    [take.offer, take.person, take.choice, take.via],
  );
  if (taken.rows.length > 0) return { outcome: 'taken', words, threadId: offer.thread_id, bot: offer.bot };
  const first = await tx.query<{ choice: number }>('select choice from choices where line_id = $1', [take.offer]);
  return { outcome: 'gone', taken: first.rows[0]?.choice ?? take.choice };
}
