/**
 * Checkpoints of a conversation, taken by the server after an answer: every
 * `CHECKPOINT_EVERY_LINES` lines of a conversation (the page's key for it), a short summary of the
 * conversation so far is kept. When a provider is live it is the model's own summary — the
 * previous summary and what was said since, asked of the bot's providers and paid for like an
 * answer, under the person's ceilings; with the stand-in (or when the ceilings or the providers say
 * no) it is the last lines verbatim. The door's prompt then carries the latest summary and the
 * last 32 messages, never the whole history (common/presence/compaction.ts).
 */
import { checkpointDue, keptSummary, summaryPrompt, verbatimSummary } from '../../common/presence/compaction';
import type { PromptLine } from '../../common/presence/compaction';
import type { AnsweredTurn, DoorBot, DoorGrant, DoorLedger } from '../chat/doorTypes';
import { STAND_IN } from '../chat/doorTypes';
import { openFirstAnswering } from '../chat/fallover';
import { costUsd, estimateTokens, priceOf } from '../chat/prices';
import type { PriceTable, TokenUsage } from '../chat/prices';
import { providerOrder } from '../chat/upstream';
import type { Provider } from '../chat/upstream';
import type { Database } from '../db/database';
import { forgottenTest } from '../db/forgotten';
import { countLines, keepCheckpoint, readCheckpoint } from '../db/presence';

export interface CheckpointDeps<G extends DoorGrant> {
  db: Database;
  providers: readonly Provider[];
  /** Providers may be bought from (`AGENTS_LIVE=1`). */
  live: boolean;
  ledger: DoorLedger<G>;
  prices: PriceTable;
  clock: () => number;
  fetch?: typeof fetch;
  /** How long the summary's first token may take, in ms. Default 20 000. */
  firstTokenMs?: number;
  /** How long a summary may take in all, in ms. Default 30 000. */
  summaryMs?: number;
  /** Lines between checkpoints. Default `CHECKPOINT_EVERY_LINES`. */
  everyLines?: number;
}

export interface Checkpoints<G extends DoorGrant, B extends DoorBot> {
  /** The latest summary of the conversation, or null; none without a conversation key. */
  summaryOf(person: string, bot: string, conversationKey: string | undefined): Promise<string | null>;
  /** Counts the turn's question and answer; takes a checkpoint when one is due. */
  afterAnswer(turn: AnsweredTurn<G, B>): Promise<void>;
}

export function checkpoints<G extends DoorGrant, B extends DoorBot>(deps: CheckpointDeps<G>): Checkpoints<G, B> {
  const fetchUpstream = deps.fetch ?? fetch;

  /** The model's summary, paid for as an answer; null when it cannot be had. */
  async function modelSummary(turn: AnsweredTurn<G, B>, previous: string | null, since: readonly PromptLine[]): Promise<string | null> {
    const reserved = await deps.ledger.reserve({ grant: turn.grant, nowMs: deps.clock() });
    if (!reserved.ok) return null;
    let text = '';
    let usage: TokenUsage | undefined;
    let answered: { provider: string; model: string } | null = null;
    const prompt = summaryPrompt(previous, since);
    try {
      const open = await openFirstAnswering(providerOrder(deps.providers, turn.bot), prompt, {
        signal: AbortSignal.timeout(deps.summaryMs ?? 30_000),
        fetch: fetchUpstream,
        firstTokenMs: deps.firstTokenMs ?? 20_000,
        onFallover: () => undefined,
      });
      answered = { provider: open.provider.name, model: open.model };
      for await (const event of open.events) {
        if (event.type === 'delta') text += event.text;
        else if (event.type === 'usage') usage = event.usage;
      }
      return text.trim() === '' ? null : keptSummary(text);
    } catch {
      return null;
    } finally {
      const spent = usage ?? { promptTokens: estimateTokens(prompt.reduce((n, m) => n + m.content.length, 0)), completionTokens: estimateTokens(text.length) };
      const price = answered === null ? undefined : priceOf(deps.prices, answered.model);
      await deps.ledger
        .settle(reserved.reservation, {
          ...spent,
          provider: answered?.provider ?? null,
          model: answered?.model ?? null,
          ended: answered === null ? 'failed' : 'stop',
          estimated: usage === undefined,
          costUsd: costUsd(price, spent),
          priced: answered === null || price !== undefined,
          nowMs: deps.clock(),
        })
        .catch(() => undefined);
    }
  }

  return {
    async summaryOf(person, bot, conversationKey) {
      if (conversationKey === undefined) return null;
      // On the way to the first token: one transaction as the grant's person, under row level security.
      return deps.db.asPerson(person, async (tx) => {
        const checkpoint = await readCheckpoint(tx, person, bot, conversationKey);
        if (checkpoint?.summary == null) return null;
        // A summary taken before something was forgotten does not hand it back to the bot.
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
      // What the person had the bot forget is left out of what it summarises, as out of what it finds.
      const said: PromptLine[] = [...turn.messages.map((m) => ({ role: m.role, content: m.content })), { role: 'assistant' as const, content: turn.answer }].filter((line) => !forgotten(line.content));
      const bought = deps.live && deps.providers.length > 0 && turn.provider !== STAND_IN;
      // The model is told what was said since its last summary; the stand-in keeps the last lines.
      const summary = (bought ? await modelSummary(turn, counted.summary, said.slice(-counted.linesSince)) : null) ?? verbatimSummary(said);
      await deps.db.asPerson(person, (tx) => keepCheckpoint(tx, person, bot, conversationKey, summary, deps.clock()));
    },
  };
}

/** `summary` without the sentences (or lines) that mention something forgotten; null when nothing is left. */
function withoutForgotten(summary: string, forgotten: (text: string) => boolean): string | null {
  const kept = summary
    .split(/\n/)
    .map((line) => line.split(/(?<=[.!?…])\s+/).filter((sentence) => !forgotten(sentence)).join(' '))
    .filter((line) => line.trim() !== '');
  return kept.length === 0 ? null : kept.join('\n');
}
