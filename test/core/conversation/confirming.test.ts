import { describe, expect, it } from 'vitest';
import { confirmPatienceMs, CONFIRM_PATIENCE_FLOOR_MS } from '../../../src/core/conversation/patience';
import { CLEAR_LIST, conversation } from '../../helpers/conversation';

const DONE = 'Done. Your shopping list is empty.';
const LEFT = 'Okay, I’ve left it as it was.';
const EXPIRED = 'That question is no longer open, so nothing was changed. Ask again if you still want it.';

/** A conversation whose answer has asked the person to confirm clearing their list, and has been heard. */
function asked(options: Parameters<typeof conversation>[0] = {}) {
  return conversation(options).user('Clear my shopping list.').asks().plays();
}

describe('an answer that asks the person to confirm', () => {
  it('waits for a yes or a no once the question has played, with the recogniser on and the action held', () => {
    const c = conversation().user('Clear my shopping list.').asks();
    expect(c.turn).toBe('thinking');
    expect(c.context.pendingAction).toMatchObject({ id: 'act-1', question: CLEAR_LIST.question, patienceMs: 60_000 });
    expect(c.spoken.map((p) => p.text)).toEqual(['Clear your shopping list?', 'Say yes or no.']);
    c.starts(0);
    expect(c.recogniserOn).toBe(false);
    c.ends(0).starts(1);
    expect(c.turn).toBe('speaking');
    c.ends(1);
    expect(c.turn).toBe('confirming');
    expect(c.recogniserOn).toBe(true);
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: CLEAR_LIST.question, utteranceId: 1 });
    expect(c.effects).toContainEqual({ type: 'saveLine', params: { role: 'assistant', text: CLEAR_LIST.question, utteranceId: 1 } });
    expect(c.settlements).toEqual([]);
  });

  it('approves on a spoken yes, keeps the yes as the person’s line, and says the server’s sentence as its answer', () => {
    const c = asked().user('Yes please.');
    expect(c.turn).toBe('settling');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: true }]);
    expect(c.context.pendingAction).toBeNull();
    expect(c.effects).toContainEqual({ type: 'saveLine', params: { role: 'user', text: 'Yes please.', utteranceId: 2 } });
    c.settles('done', DONE);
    expect(c.turn).toBe('announcing');
    expect(c.settlements[0]?.stopped).toBe(true);
    expect(c.spoken.filter((p) => p.utteranceId === 2).map((p) => p.text)).toEqual(['Done.', 'Your shopping list is empty.']);
    expect(c.context.lines.slice(-2)).toEqual([
      { role: 'user', text: 'Yes please.', utteranceId: 2 },
      { role: 'assistant', text: DONE, utteranceId: 2 },
    ]);
    c.plays();
    expect(c.turn).toBe('listening');
    expect(c.effects).toContainEqual({ type: 'saveLine', params: { role: 'assistant', text: DONE, utteranceId: 2 } });
  });

  it('refuses on a spoken no, and says the server’s sentence', () => {
    const c = asked().user('No, leave it.');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: false }]);
    c.settles('denied', LEFT).plays();
    expect(c.turn).toBe('listening');
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: LEFT, utteranceId: 2 });
  });

  it('takes any negation as a no, and in the person’s language', () => {
    expect(asked().user('yes, no wait').settlements[0]?.request.approve).toBe(false);
    expect(asked().user("don't do it").settlements[0]?.request.approve).toBe(false);
    expect(asked({ language: 'de-DE' }).user('Ja, mach das.').settlements[0]?.request.approve).toBe(true);
    expect(asked({ language: 'fr' }).user('non, annule').settlements[0]?.request.approve).toBe(false);
  });

  it('hears the person’s language as it changes', () => {
    const c = asked().send({ type: 'settings.changed', language: 'es' }).user('Sí, claro.');
    expect(c.settlements[0]?.request.approve).toBe(true);
  });

  it('refuses on anything else, never taking it as a yes, and answers it as a new question', () => {
    const c = asked().user('What is on it?');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: false }]);
    expect(c.turn).toBe('thinking');
    expect(c.stream.request.messages.slice(-2)).toEqual([
      { role: 'assistant', content: CLEAR_LIST.question },
      { role: 'user', content: 'What is on it?' },
    ]);
    // Its outcome is not said over the new answer, nor after it.
    c.settles('denied', LEFT);
    expect(c.settlements[0]?.stopped).toBe(true);
    c.bot('Milk and eggs.').plays();
    expect(c.turn).toBe('listening');
    expect(c.spoken.map((s) => s.text)).not.toContain(LEFT);
  });

  it('approves on the Yes button and refuses on the No button, the outcome a line of its own', () => {
    const yes = asked().presses('yes');
    expect(yes.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: true }]);
    yes.settles('done', DONE);
    expect(yes.context.lines.at(-1)).toEqual({ role: 'assistant', text: DONE, utteranceId: 2 });
    expect(yes.context.lines.filter((l) => l.role === 'user')).toHaveLength(1);
    const no = asked().presses('no');
    expect(no.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: false }]);
  });

  it('refuses once its patience runs out, and says the server’s sentence', () => {
    const c = asked({ delays: { confirmPatience: 5_000 } });
    c.wait(4_999);
    expect(c.settlements).toEqual([]);
    c.wait(1);
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: false }]);
    c.settles('expired', EXPIRED);
    expect(c.turn).toBe('announcing');
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: EXPIRED, utteranceId: 2 });
  });

  it('waits as long as the action has left, from when it was received, but never past a minute nor under the floor', () => {
    expect(confirmPatienceMs(1_045_000, 1_000_000)).toBe(45_000);
    expect(confirmPatienceMs(1_600_000, 1_000_000)).toBe(60_000);
    expect(confirmPatienceMs(900_000, 1_000_000)).toBe(CONFIRM_PATIENCE_FLOOR_MS);
    const c = conversation().user('Clear my shopping list.').asks({ ...CLEAR_LIST, expiresAtMs: 30_000 }).plays();
    c.wait(29_999);
    expect(c.settlements).toEqual([]);
    c.wait(1);
    expect(c.settlements).toHaveLength(1);
  });

  it('approves nothing when the question is talked over: the action waits for the person’s answer', () => {
    const c = conversation().user('Clear my shopping list.').asks().starts(0).interrupt();
    expect(c.effects.map((e) => e.type)).toEqual(expect.arrayContaining(['stopAudio', 'cancelUtterance']));
    expect(c.turn).toBe('confirming');
    expect(c.settlements).toEqual([]);
    expect(c.context.pendingAction?.id).toBe('act-1');
    expect(c.context.lines.at(-1)).toMatchObject({ role: 'assistant', interrupted: true });
    c.user('yes');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: true }]);
  });

  it('takes words said over the question as the answer to it, cutting the audio as a barge-in does', () => {
    const c = conversation().user('Clear my shopping list.').asks().starts(0).clearEffects().user('Yes, do it.');
    expect(c.effects.map((e) => e.type)).toEqual(expect.arrayContaining(['stopAudio', 'cancelUtterance']));
    expect(c.stream.aborted).toBe(true);
    expect(c.turn).toBe('settling');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: true }]);
  });

  it('takes something else said over the question as a new question, refusing the action', () => {
    const c = conversation().user('Clear my shopping list.').asks().starts(0).user('Actually, what time is it?');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: false }]);
    expect(c.turn).toBe('thinking');
    expect(c.streams).toHaveLength(2);
    expect(c.context.pendingAction).toBeNull();
  });

  it('takes a press while the question is still being said', () => {
    const c = conversation().user('Clear my shopping list.').asks().starts(0).presses('no');
    expect(c.count('stopAudio')).toBe(1);
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: false }]);
  });

  it('ignores the buttons when nothing waits for an answer', () => {
    const c = conversation().user('Hi.').bot('Hello.').plays().presses('yes');
    expect(c.settlements).toEqual([]);
    expect(c.turn).toBe('listening');
  });

  it('drops the question heard back through the speakers, and waits on', () => {
    const c = asked().user('clear your shopping list say yes or no');
    expect(c.turn).toBe('confirming');
    expect(c.settlements).toEqual([]);
  });

  it('asks only after a question whose answer has ended, with speech off too', () => {
    const c = conversation({ speech: false }).user('Clear my shopping list.').asks();
    expect(c.turn).toBe('confirming');
    expect(c.spoken).toEqual([]);
  });

  it('says the outcome later when the person goes on before it comes', () => {
    const c = asked().user('Yes.').user('And what is the weather?');
    expect(c.turn).toBe('thinking');
    c.settles('done', DONE);
    c.bot('Sunny.').plays();
    expect(c.turn).toBe('announcing');
    expect(c.spoken.filter((p) => p.utteranceId === c.utteranceId).map((p) => p.text).join(' ')).toBe(DONE);
  });

  it('says why when the server could not be asked', () => {
    const c = asked().presses('yes');
    c.send({ type: 'action.failed', actionId: 'act-1', sentence: 'I couldn’t reach the server.' });
    expect(c.turn).toBe('announcing');
    expect(c.context.lines.at(-1)?.text).toBe('I couldn’t reach the server.');
  });

  it('hears the answer while the talk control is held, in push to talk', () => {
    const c = asked({ pushToTalk: true });
    expect(c.turn).toBe('confirming');
    expect(c.recogniserOn).toBe(false);
    c.press();
    expect(c.recogniserOn).toBe(true);
    c.user('yes').release();
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'act-1', approve: true }]);
  });
});

describe('a question work that outlived a turn asks between turns', () => {
  const RUN_ASK = { id: 'run-act-1', verb: 'lists.clear', question: 'Clear your shopping list? Say yes or no.', expiresAtMs: Date.now() + 24 * 60 * 60 * 1000 };

  it('is said once the turn is the person’s, then hears their yes as the answer to it', () => {
    const c = conversation().user('Tell me a story.').streamWords('Once upon a time. ').send({ type: 'bot.asks', action: RUN_ASK, atMs: Date.now() });
    expect(c.context.pendingAction).toBeNull();
    c.answerDone().plays();
    expect(c.turn).toBe('announcing');
    expect(c.context.pendingAction).toMatchObject({ id: 'run-act-1', patienceMs: 60_000 });
    c.plays();
    expect(c.turn).toBe('confirming');
    c.user('Yes.');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'run-act-1', approve: true }]);
  });

  it('is asked once however often it is heard, and never over the person', () => {
    const c = conversation().hears('well').send({ type: 'bot.asks', action: RUN_ASK, atMs: Date.now() }).send({ type: 'bot.asks', action: RUN_ASK, atMs: Date.now() });
    expect(c.turn).toBe('listening');
    expect(c.context.announcements).toEqual([RUN_ASK.question]);
    c.user('Well, what time is it?').bot('Noon.').plays();
    expect(c.turn).toBe('announcing');
    c.plays();
    expect(c.turn).toBe('confirming');
    c.user('No.');
    expect(c.settlements.map((s) => s.request)).toEqual([{ actionId: 'run-act-1', approve: false }]);
  });
});
