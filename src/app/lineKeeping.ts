/**
 * Keeping a conversation's lines as they are said: each line goes to the outbox (this device first,
 * the server after) under one local thread, made on the first line kept.
 *
 * A greeting (or anything the assistant says before the person has said a word) is not yet a
 * conversation: it is held back and kept just ahead of the person's first line, or never. A
 * conversation reopened from the drawer has been heard already, so its lines are kept at once.
 *
 * Each conversation has a key of its own; a line's `clientId` is made from it, so a line sent twice
 * (by the outbox and by a request that outlives a closing page) is kept once. A line longer than the
 * server keeps (`LINE_MAX_CHARS`) is kept as several lines in a row.
 */
import { lineClientId, lineOfClientId } from '../../common/conversation/clientIds';
import type { Line } from '../../common/conversation/events';
import { lineParts } from '../core/conversation/lineParts';
import type { ConversationApi } from '../platform/conversationApi';
import { retryable } from '../platform/conversationApi';
import { createOutbox } from '../platform/outbox';
import type { Outbox } from '../platform/outbox';
import { newId } from '../platform/newId';
import { sayWord } from '../platform/words';
import { sentenceOf } from './sentenceOf';

export interface LineKeepingPorts {
  /** The server's routes: threads and lines for the outbox, and lines sent as the page closes. */
  api: Pick<ConversationApi, 'createThread' | 'addLine'>;
  /** The bot's slug, for a new thread. */
  bot: string;
  /** The server's id of the conversation on screen, or null until the server has it. */
  threadId: () => string | null;
  /** The server now has the conversation on screen, under `threadId`. */
  onThreadId: (threadId: string) => void;
  /** How many lines wait to be saved on the server. */
  onWaiting: (count: number) => void;
  /** A sentence for the person: lines could not be kept, or one was refused. */
  onProblem: (sentence: string) => void;
  /** Makes the outbox; default the page's IndexedDB outbox. */
  openOutbox?: () => Promise<Outbox>;
}

export interface LineKeeping {
  /** Keeps one line of the conversation on screen (or holds it back, as above). */
  keep: (line: Line) => void;
  /** The lines that follow are a new conversation, made on its first kept line. */
  fresh(): void;
  /** The lines that follow continue the server's conversation `threadId`, which has been heard. */
  reopen(threadId: string): void;
  /**
   * The lines that follow continue the conversation another of the person's pages was having (this
   * page became the active one): under that page's key for the door, in its server thread when it had
   * one (else in a new one), its lines so far heard already.
   */
  carryOn(threadId: string | null, key: string): void;
  /**
   * The page is going away (a reload, a closed tab) or has come back: while it is going, a line
   * kept is also sent at once in a request that outlives the page.
   */
  leaving(going: boolean): void;
  /**
   * The page's key for the conversation on screen, as the chat door is told it: made afresh for a
   * new conversation, `thread:<id>` for one reopened from the drawer; the same for every turn of it.
   */
  key(): string;
  /**
   * The utterance of the line kept as `clientId` in the conversation on screen, or null when it is
   * another conversation's (or part of a line kept as several after its first).
   */
  utteranceOf(clientId: string): number | null;
  close(): void;
}

export async function openLineKeeping(ports: LineKeepingPorts): Promise<LineKeeping> {
  const { api } = ports;
  let outbox: Outbox | null = null;
  try {
    outbox = await (ports.openOutbox ?? (() => createOutbox({ api, retryable })))();
    outbox.onPending((count) => {
      ports.onWaiting(count);
    });
    outbox.onRefused((refusal) => {
      ports.onProblem(sayWord('page-lines.not-saved', { why: refusal.reason }));
    });
    ports.onWaiting(outbox.pending());
  } catch (error) {
    ports.onProblem(sayWord('page-lines.cannot-keep', { why: sentenceOf(error) }));
  }

  /** The conversation's lines go to the outbox under one local thread, made on the first line. */
  let localThread: Promise<string> | null = null;
  let conversationKey: string = newId();
  /** What the door is told; see `key()`. */
  let doorKey = conversationKey;
  /**
   * The assistant's lines said before the person said anything (a greeting), held until they do;
   * null once they have, when every line is kept as it is said.
   */
  let heldBack: Line[] | null = [];
  /**
   * The page is going away: the outbox's IndexedDB write and its send may not finish before it
   * does, so a line kept now is also sent at once in a request that outlives the page. Its clientId
   * is the outbox's, so if both arrive the server keeps one.
   */
  let going = false;
  /** The last line's writing to the outbox; the next line's waits for it. */
  let inOrder: Promise<unknown> = Promise.resolve();

  function keepingInto(thread: Promise<string> | null, heard: boolean, reopened?: string): void {
    conversationKey = newId();
    doorKey = reopened === undefined ? conversationKey : `thread:${reopened}`;
    localThread = thread;
    heldBack = heard ? null : [];
  }

  function keep(line: Line): void {
    const box = outbox;
    if (box === null) return;
    // A greeting alone is not a conversation: it is kept only once the person has said something.
    if (line.role === 'assistant' && heldBack !== null) {
      heldBack.push(line);
      return;
    }
    const lines = heldBack === null ? [line] : [...heldBack, line];
    heldBack = null;
    localThread ??= box.startThread(ports.bot);
    const key = conversationKey;
    // A line longer than the server keeps goes as several, in order, each with a clientId of its own
    // (the first the line's own), so nothing said is refused for its length and lost; an interrupted
    // answer was cut short in its last part.
    const toSave = lines.flatMap((said) => {
      const parts = lineParts(said.text).filter((part) => part.trim() !== '');
      return parts.map((part, i) => ({
        who: said.role === 'user' ? ('person' as const) : ('assistant' as const),
        text: part,
        clientId: lineClientId(key, said, i),
        ...(said.interrupted === true && i === parts.length - 1 ? { interrupted: true } : {}),
      }));
    });
    const serverThread = ports.threadId();
    if (going && serverThread !== null) {
      // Best effort by nature: the page may be gone before any answer; the outbox still has the line.
      for (const one of toSave) void api.addLine(serverThread, one, { keepalive: true }).catch(() => undefined);
    }
    // Onto the device in the order said: a line kept while an earlier one is still being written
    // waits for it, or the server would have an answer ahead of its question.
    const thread = localThread;
    const added = inOrder.then(async () => {
      const threadId = await thread;
      for (const one of toSave) await box.addLine(threadId, one);
      return threadId;
    });
    inOrder = added.catch(() => undefined);
    void added
      .then(async (threadId) => {
        if (ports.threadId() === null) {
          // Kept on the device is not yet on the server: the server's id exists once the send is through.
          let serverId = await box.serverThreadId(threadId);
          if (serverId === undefined) {
            await box.flush();
            serverId = await box.serverThreadId(threadId);
          }
          if (serverId !== undefined && key === conversationKey) ports.onThreadId(serverId);
        }
      })
      .catch((error: unknown) => {
        ports.onProblem(sayWord('page-lines.line-not-kept', { why: sentenceOf(error) }));
      });
  }

  return {
    keep,
    fresh: () => {
      keepingInto(null, false);
    },
    reopen: (threadId) => {
      keepingInto(outbox === null ? null : outbox.adoptThread(threadId), true, threadId);
    },
    carryOn: (threadId, key) => {
      keepingInto(outbox === null || threadId === null ? null : outbox.adoptThread(threadId), true);
      doorKey = key;
    },
    leaving: (yes) => {
      going = yes;
    },
    key: () => doorKey,
    utteranceOf: (clientId) => {
      const line = lineOfClientId(clientId);
      return line !== null && line.key === conversationKey && line.part === 0 ? line.utteranceId : null;
    },
    close: () => outbox?.close(),
  };
}
