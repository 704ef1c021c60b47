/**
 * What a bot is given beyond the prompt, by its file's `memory:` — and the one thing it writes:
 * - `none`: the question alone;
 * - `thread`: the conversation the page sent (the default);
 * - `person`: and what this person asked this bot before, in other conversations, oldest first;
 * - `person+recall`: and what they told this bot before, found by meaning (nearest neighbours over
 *   their own rows in the embedder's space, capped by count and by the embedder's distance floor). The only kind that writes: each thing
 *   the person says through the door is kept with its vector, by the server, never by a client.
 */
import type { ChatMessage, ConversationMessage } from '../chat/chatRequest';
import type { MemoryKind } from '../bots';
import type { Database } from '../db/database';
import { pastQuestions } from '../db/lines';
import { recall, recallExactly, rememberLine } from '../db/memories';
import type { Recalled, RecallQuery } from '../db/memories';
import { widthOf } from './embed';
import type { Embedder } from './embed';
import { gapBefore, recentMessages } from '../../common/presence/compaction';

/** How many memories one answer may be given. */
export const RECALL_LIMIT = 5;
/**
 * The distance floor, as cosine distance (0 same, 1 unrelated), for an embedder that names none of
 * its own (`Embedder.maxDistance`) — the hash embedder: past it a memory is not recalled. Recalling
 * an unrelated remark is worse than recalling nothing, so each embedder's floor is the largest (in
 * steps of 0.05) at which at most 5 % of questions about nothing the person said recall anything,
 * on the calibration set of `npm run bench -- recall-quality`. For hash that is 0.65: its former
 * 0.85 recalled something for 80 % of such questions, since unrelated short remarks share enough
 * character trigrams to sit near 0.75, not near 1.0.
 */
const RECALL_MAX_DISTANCE = 0.65;

/** The floor recall uses in `embedder`'s space. */
export function recallFloorOf(embedder: Pick<Embedder, 'maxDistance'>): number {
  return embedder.maxDistance ?? RECALL_MAX_DISTANCE;
}
/** How many earlier questions `person` memory carries. */
const PAST_QUESTIONS = 20;
/** The shortest remark worth keeping, in characters ("ok", "yes" are not memories). */
const REMEMBER_MIN_CHARS = 12;

/**
 * How many memories a person may have with a bot before recall walks the approximate index rather
 * than comparing with every one: a few hundred compare faster than the index is walked, ten
 * thousand far slower (`npm run bench -- recall`; docs/performance.md).
 */
export const EXACT_RECALL_MAX = 1_000;
/** Persons (and bots and embedders) whose count of memories a recaller remembers; past it, the longest unused is forgotten. */
const RECALL_COUNTS_REMEMBERED = 10_000;

/**
 * Recall as the memory context makes it, from the database every time (nothing is held in the
 * server's process, so what a person forgot is never recalled again, whichever server or
 * transaction forgot it), as the person under row level security (`asPerson`: the statement names
 * them too, and the policy keeps any other person's rows out whatever it names): exactly (every one
 * of the person's memories compared, `recallExactly`) while they have at most `EXACT_RECALL_MAX`,
 * through the index past that (it sets its plan for its transaction). The
 * count is what the last exact recall compared, remembered per person, bot and embedder; one not
 * known yet is recalled exactly, which says it. The two answer alike — the index may miss a near
 * memory now and then — so a count another server has since changed costs time, never a memory.
 */
export function recaller(): (db: Pick<Database, 'asPerson'>, query: RecallQuery) => Promise<Recalled[]> {
  const counts = new Map<string, number>();
  return async (db, query) => {
    const key = `${query.person}\u0000${query.bot}\u0000${query.embedder}`;
    const known = counts.get(key);
    if (known !== undefined && known > EXACT_RECALL_MAX) return db.asPerson(query.person, (tx) => recall(tx, query));
    const { recalled, compared } = await db.asPerson(query.person, (tx) => recallExactly(tx, query));
    counts.delete(key);
    counts.set(key, compared);
    if (counts.size > RECALL_COUNTS_REMEMBERED) {
      const oldest = counts.keys().next();
      if (oldest.done !== true) counts.delete(oldest.value);
    }
    return recalled;
  };
}

export interface MemoryTurn {
  person: string;
  bot: string;
  memory: MemoryKind;
  messages: readonly ConversationMessage[];
}

function lastQuestion(messages: readonly ConversationMessage[]): string {
  return [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

function note(heading: string, items: readonly string[]): ChatMessage {
  return { role: 'system', content: `${heading}\n${items.map((i) => `- ${i}`).join('\n')}` };
}

export function memoryContext(db: Database, embedder: Embedder) {
  const recallFor = recaller();
  return async function context(turn: MemoryTurn): Promise<ChatMessage[]> {
    const question = lastQuestion(turn.messages);
    if (turn.memory === 'none') return [{ role: 'user', content: question }];
    const conversation: ChatMessage[] = turn.messages.map((m) => ({ ...m }));
    if (turn.memory === 'thread') return conversation;
    // The question's vector first: an embedder may be a network call, never made inside a transaction.
    const recalling = turn.memory === 'person+recall' && question.trim() !== '';
    const embedding = recalling ? await embedder.embed(question) : undefined;
    // Two reads that need not agree with each other, so two transactions, each as the person under
    // row level security: on Postgres they run side by side.
    const [asked, recalled] = await Promise.all([
      db.asPerson(turn.person, (tx) => pastQuestions(tx, { person: turn.person, bot: turn.bot, limit: PAST_QUESTIONS })),
      embedding === undefined
        ? []
        : recallFor(db, {
            person: turn.person,
            bot: turn.bot,
            embedder: embedder.name,
            dimensions: widthOf(embedder),
            embedding,
            limit: RECALL_LIMIT,
            maxDistance: recallFloorOf(embedder),
          }),
    ]);
    const earlier = asked.filter((q) => !turn.messages.some((m) => m.role === 'user' && m.content === q));
    const notes: ChatMessage[] = earlier.length > 0 ? [note('In earlier conversations this person asked you, oldest first:', earlier)] : [];
    const told = recalled.map((m) => m.text).filter((t) => t !== question);
    if (told.length > 0) notes.push(note('Things this person told you before that may matter now:', told));
    return [...notes, ...conversation];
  };
}

/** Keeps what the person just said, for `person+recall` bots only. */
export function memoryWriter(db: Database, embedder: Embedder) {
  return async function remember(turn: { person: string; bot: string; memory: MemoryKind; question: string }): Promise<void> {
    const said = turn.question.trim();
    if (turn.memory !== 'person+recall' || said.length < REMEMBER_MIN_CHARS) return;
    const embedding = await embedder.embed(said);
    await db.asServer((tx) => rememberLine(tx, { person: turn.person, bot: turn.bot, text: said, embedder: embedder.name, embedding }));
  };
}

// ---- Compaction (presence): the prompt never carries the whole history. ------------------------

/**
 * `context`, compacted (common/presence/compaction.ts): it is given the last `RECENT_MESSAGES`
 * of the conversation only, and when earlier lines were left out, a marker of the gap goes before
 * what it answers — with the checkpoint's lines when the messages do not reach them. However long
 * the thread, the prompt is the bot's system message, one marker, what memory adds, and 32 messages.
 */
export function compactedContext<T extends { messages: readonly ConversationMessage[] }>(
  context: (turn: T) => Promise<ChatMessage[]>,
  checkpointOf: (turn: T) => Promise<string | null>,
): (turn: T) => Promise<ChatMessage[]> {
  return async (turn) => {
    const [checkpoint, rest] = await Promise.all([checkpointOf(turn), context({ ...turn, messages: recentMessages(turn.messages) })]);
    const gap = gapBefore(turn.messages, checkpoint);
    return gap === null ? rest : [gap, ...rest];
  };
}
