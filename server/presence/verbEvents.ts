/**
 * Verbs that finish away from the conversation go into the person's window, so the active page says what became of them between turns (src/core/presence/narration.ts): a write an MCP
 * client made (`elsewhere`), and a write that landed after the turn that asked for it was talked
 * over (`late`) — its caller was told it was cancelled, so this is the only word of it. What is
 * said is the app's own narration ("That's 3 things on your shopping list."); a verb with none is
 * kept without a sentence and not narrated. Reads, and writes said in their own turn, are not.
 */
import type { Caller, Ran } from '../verbs/verb';
import type { Executor } from '../verbs/executor';
import type { Presence } from './presence';

export function verbEvents(deps: { narrate: Executor['narrate']; publish: Presence['publish'] }): (written: { ran: Ran; caller: Caller; late: boolean }) => void {
  return ({ ran, caller, late }) => {
    const origin = caller.via === 'mcp' ? 'elsewhere' : late && caller.via === 'model' ? 'late' : null;
    if (origin === null) return;
    void (async () => {
      const sentences = await deps.narrate(ran, caller);
      await deps.publish(caller.person, caller.bot, [{ kind: 'verb', verb: ran.verb, ok: true, sentence: sentences.length === 0 ? null : sentences.join(' '), origin }]);
    })().catch(() => {
      // A courtesy: the write stands whether or not it is said.
    });
  };
}
