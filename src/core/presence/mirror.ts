/**
 * What a passive page shows of the conversation the active page is having: the lines kept so far,
 * the answer under way (its spoken pieces, or the live draft), and the live line — folded from the
 * window's events and the live state, in any order and any number of times. An event is applied
 * once (by its `seq`); a line is one line by its utterance and speaker, so the same line arriving
 * twice (from the browser's channel and from the server) is shown once.
 */
import { lineOfClientId } from '../../../common/conversation/clientIds';
import type { Line } from '../../../common/conversation/events';
import { withOffer, withTaken } from '../conversation/offers';
import type { ConversationRef, LivePhase, LiveState, Sequenced, WindowEvent } from '../../../common/presence/protocol';

export interface Mirror {
  /** The conversation shown, or null before the active page has said which. */
  conversation: ConversationRef | null;
  /** Kept lines, in the order they were said. */
  lines: readonly Line[];
  /** Pieces of answers spoken and not yet kept, by utterance. */
  pieces: Readonly<Record<number, readonly string[]>>;
  /** The active page's live state, or null when it sent none (or it is over). */
  live: LiveState | null;
  /** The last window `seq` applied; 0 before any. */
  lastSeq: number;
  /** The conversation's earlier lines must be read from the server (`reload`). */
  needsLines: boolean;
}

/** What the page shows, in the conversation view's own terms. */
export interface MirrorView {
  lines: Line[];
  liveLine: string;
  phase: LivePhase;
}

export const EMPTY_MIRROR: Mirror = Object.freeze({ conversation: null, lines: Object.freeze([]), pieces: Object.freeze({}), live: null, lastSeq: 0, needsLines: false });

const sameLine = (a: Line, b: Line) => a.utteranceId === b.utteranceId && a.role === b.role;

function withLine(lines: readonly Line[], line: Line): Line[] {
  const at = lines.findIndex((l) => sameLine(l, line));
  if (at !== -1) return lines.map((l, i) => (i === at ? line : l));
  // In the order said: by utterance, the person's line before the assistant's answer to it.
  const after = lines.findIndex((l) => l.utteranceId > line.utteranceId || (l.utteranceId === line.utteranceId && line.role === 'user'));
  return after === -1 ? [...lines, line] : [...lines.slice(0, after), line, ...lines.slice(after)];
}

/** The mirror after one window event; an event at or before `lastSeq` changes nothing. */
export function mirrorEvent(mirror: Mirror, sequenced: Sequenced): Mirror {
  if (sequenced.seq <= mirror.lastSeq) return mirror;
  return { ...applyEvent(mirror, sequenced.event), lastSeq: sequenced.seq };
}

/** The mirror after an event not yet sequenced (from this browser's channel, ahead of the server). */
export function applyEvent(mirror: Mirror, event: WindowEvent): Mirror {
  const current = mirror.conversation?.conversation;
  switch (event.kind) {
    case 'conversation': {
      const { conversation, threadId, reopened } = event;
      if (conversation === current) return { ...mirror, conversation: { conversation, threadId: threadId ?? mirror.conversation?.threadId ?? null, reopened: mirror.conversation?.reopened === true || reopened } };
      return { ...mirror, conversation: { conversation, threadId, reopened }, lines: [], pieces: {}, live: null, needsLines: reopened };
    }
    case 'line': {
      if (current !== undefined && event.conversation !== current) return mirror;
      const { [event.line.utteranceId]: _done, ...pieces } = mirror.pieces;
      const conversation = mirror.conversation ?? { conversation: event.conversation, threadId: null, reopened: false };
      // The line as the page kept it may come after the server's offer on it: the offer stands.
      const had = mirror.lines.find((l) => sameLine(l, event.line));
      const line = had?.offer !== undefined && event.line.offer === undefined ? { ...event.line, text: had.text, offer: had.offer } : event.line;
      return { ...mirror, conversation, lines: withLine(mirror.lines, line), pieces: event.line.role === 'assistant' ? pieces : mirror.pieces };
    }
    case 'offer': {
      const said = lineOfClientId(event.clientId);
      const shown = mirror.conversation;
      if (said === null || said.role !== 'assistant' || said.part !== 0 || shown === null) return mirror;
      if (shown.threadId !== event.threadId && shown.conversation !== said.key) return mirror;
      // Ahead of the page's own word of the line, the server's is the line.
      const lines = mirror.lines.some((l) => l.role === 'assistant' && l.utteranceId === said.utteranceId) ? mirror.lines : withLine(mirror.lines, { role: 'assistant', text: event.text, utteranceId: said.utteranceId });
      return { ...mirror, lines: [...withOffer(lines, said.utteranceId, event.text, event.offer)] };
    }
    case 'choice': {
      const lines = withTaken(mirror.lines, event.offer, event.taken);
      return lines === mirror.lines ? mirror : { ...mirror, lines: [...lines] };
    }
    case 'piece': {
      if (current !== undefined && event.conversation !== current) return mirror;
      if (mirror.lines.some((l) => l.role === 'assistant' && l.utteranceId === event.utteranceId)) return mirror;
      const said = [...(mirror.pieces[event.utteranceId] ?? [])];
      said[event.piece] = event.text;
      return { ...mirror, pieces: { ...mirror.pieces, [event.utteranceId]: said } };
    }
    case 'notice':
    case 'verb':
    case 'run':
    case 'presence':
      return mirror;
  }
}

/** The mirror with the active page's live state; another conversation's live state is set aside. */
export function mirrorLive(mirror: Mirror, live: LiveState): Mirror {
  const current = mirror.conversation?.conversation;
  if (current !== undefined && live.conversation !== current) return mirror;
  return { ...mirror, live };
}

/** The mirror started over from a conversation's lines, read from the server up to `seq`. */
export function mirrorReloaded(mirror: Mirror, conversation: ConversationRef | null, lines: readonly Line[], seq: number): Mirror {
  return { conversation, lines: [...lines], pieces: {}, live: null, lastSeq: Math.max(mirror.lastSeq, seq), needsLines: false };
}

/** The answer under way: its pieces spoken so far, or the live draft when that says more. */
function underWay(mirror: Mirror): Line | null {
  const draft = mirror.live?.draft ?? null;
  const spoken = Object.entries(mirror.pieces)
    .map(([utteranceId, texts]) => ({ utteranceId: Number(utteranceId), text: texts.filter((t) => t !== '').join(' ') }))
    .sort((a, b) => b.utteranceId - a.utteranceId)[0];
  const best = draft !== null && (spoken === undefined || draft.utteranceId > spoken.utteranceId || (draft.utteranceId === spoken.utteranceId && draft.text.length >= spoken.text.length)) ? draft : spoken;
  if (best === undefined || best.text.trim() === '') return null;
  if (mirror.lines.some((l) => l.role === 'assistant' && l.utteranceId === best.utteranceId)) return null;
  return { role: 'assistant', text: best.text.trim(), utteranceId: best.utteranceId };
}

export function mirrorView(mirror: Mirror): MirrorView {
  const answer = underWay(mirror);
  const lines = answer === null ? [...mirror.lines] : withLine(mirror.lines, answer);
  const liveLine = mirror.live?.liveLine ?? '';
  // The question is kept (and shown) as it is asked; the live line does not say it a second time.
  const last = lines.at(-1);
  const asked = last !== undefined && last.role === 'user' && last.text.trim() === liveLine.trim();
  return { lines, liveLine: asked ? '' : liveLine, phase: mirror.live?.phase ?? 'listening' };
}

/**
 * The lines a page takes over with: the kept lines, and the answer that was under way, kept as
 * interrupted — the page that was saying it stops as this one becomes the active page.
 */
export function linesToTakeOver(mirror: Mirror): Line[] {
  const answer = underWay(mirror);
  return answer === null ? [...mirror.lines] : withLine(mirror.lines, { ...answer, interrupted: true });
}
