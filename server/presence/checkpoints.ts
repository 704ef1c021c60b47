/**
 * Checkpoints of a conversation, taken by the server after an answer and never by asking a model
 * (the seed 002: no paid summaries): every `CHECKPOINT_EVERY_LINES` lines of a conversation (the
 * page's key for it), its last lines are kept verbatim. The door's prompt then carries the last 32
 * messages, a marker where earlier lines were left out, and the checkpoint's lines only when a page
 * came back without them (common/presence/compaction.ts).
 */
import { checkpointDue, checkpointLines } from '../../common/presence/compaction';
import type { PromptLine } from '../../common/presence/compaction';
import type { AnsweredTurn, DoorBot, DoorGrant } from '../chat/doorTypes';
import type { Database } from '../db/database';
import { forgottenTest } from '../db/forgotten';
import { countLines, keepCheckpoint, readCheckpoint } from '../db/presence';

export interface CheckpointDeps {
  db: Database;
  clock: () => number;
  /** Lines between checkpoints. Default `CHECKPOINT_EVERY_LINES`. */
  everyLines?: number;
}

export interface Checkpoints<G extends DoorGrant, B extends DoorBot> {
  /** The conversation's latest checkpoint, or null; none without a conversation key. */
  latest(person: string, bot: string, conversationKey: string | undefined): Promise<string | null>;
  /** Counts the turn's question and answer; keeps a checkpoint when one is due. */
  afterAnswer(turn: AnsweredTurn<G, B>): Promise<void>;
}

export function checkpoints<G extends DoorGrant, B extends DoorBot>(deps: CheckpointDeps): Checkpoints<G, B> {
  return {
    async latest(person, bot, conversationKey) {
      if (conversationKey === undefined) return null;
      // On the way to the first token: one transaction as the grant's person, under row level security.
      return deps.db.asPerson(person, async (tx) => {
        const checkpoint = await readCheckpoint(tx, person, bot, conversationKey);
        if (checkpoint?.summary == null) return null;
        // A checkpoint taken before something was forgotten does not hand it back to the bot.
        return withoutForgotten(checkpoint.summary, await forgottenTest(tx, { person, bot }));
      });
    },
    async afterAnswer(turn) {
      const { conversationKey } = turn;
      if (conversationKey === undefined) return;
      const { person, bot } = turn.grant;
      const counted = await deps.db.asPerson(person, (tx) => countLines(tx, person, bot, conversationKey, 2, (linesSince) => checkpointDue(linesSince, deps.everyLines)));
      if (!counted.due) return;
      const forgotten = await deps.db.asPerson(person, (tx) => forgottenTest(tx, { person, bot }));
      // What the person had the bot forget is left out of what is kept, as out of what it finds.
      const said: PromptLine[] = [...turn.messages.map((m) => ({ role: m.role, content: m.content })), { role: 'assistant' as const, content: turn.answer }].filter((line) => !forgotten(line.content));
      await deps.db.asPerson(person, (tx) => keepCheckpoint(tx, person, bot, conversationKey, checkpointLines(said), deps.clock()));
    },
  };
}

/** `checkpoint` without the sentences (or lines) that mention something forgotten; null when nothing is left. */
function withoutForgotten(checkpoint: string, forgotten: (text: string) => boolean): string | null {
  const kept = checkpoint
    .split(/\n/)
    .map((line) => line.split(/(?<=[.!?…])\s+/).filter((sentence) => !forgotten(sentence)).join(' '))
    .filter((line) => line.trim() !== '');
  return kept.length === 0 ? null : kept.join('\n');
}
