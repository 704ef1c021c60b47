/**
 * What an utterance leaves behind once it is over: the lines it settles into the written
 * conversation, and what of it may still come back as echo.
 */
import { rememberedUtterances } from '../hearing/selfEcho';
import type { Line } from '../../../common/conversation/events';
import type { ConversationContext } from './context';

/** The question and what has been written of its answer, settled into the written conversation. */
export function settledLines(context: ConversationContext, interrupted: boolean): Line[] {
  const lines = [...context.lines];
  const { utteranceId, question, answer } = context;
  if (question !== null && !lines.some((l) => l.role === 'user' && l.utteranceId === utteranceId)) {
    lines.push({ role: 'user', text: question, utteranceId });
  }
  // Talked over, the line is what was played of it — every piece that began to sound — unless none
  // had, when it is what had been written on the screen.
  const played = context.pieces.filter((_, piece) => context.played[piece] === true).join(' ');
  const spoken = (interrupted && played !== '' ? played : answer).trim();
  if (spoken !== '') {
    const line: Line = interrupted
      ? { role: 'assistant', text: spoken, utteranceId, interrupted: true }
      : { role: 'assistant', text: spoken, utteranceId };
    const at = lines.findIndex((l) => l.role === 'assistant' && l.utteranceId === utteranceId);
    if (at === -1) lines.push(line);
    else lines[at] = line;
  }
  return lines;
}

/**
 * What may still come back as echo once this utterance is over: it, and the utterances before it —
 * unless it answered a question, when what was said before that question is stale. Echo follows the
 * assistant's audio within seconds; once the person has been heard and answered, the words before
 * are words they may fairly repeat ("Clear my shopping list." after "Clear your shopping list?").
 */
export function remembered(context: ConversationContext): string[] {
  const said = context.pieces.join(' ').trim();
  const earlier = context.question === null ? context.recentlySpoken : [];
  return said === '' ? context.recentlySpoken : [...earlier, said].slice(-rememberedUtterances);
}
