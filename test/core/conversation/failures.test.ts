import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { conversationMachine } from '../../../src/core/conversation/conversationMachine';
import { OptionError } from '../../../common/options';
import { conversation } from '../../helpers/conversation';
import { englishSay } from '../../helpers/pageWords';

describe('failures', () => {
  it('returns the turn and shows the reason when the answer stream fails before any word', () => {
    const c = conversation().user('Hi.').answerFails('The language model is out of credit.');
    expect(c.turn).toBe('listening');
    expect(c.context.problem).toEqual({ kind: 'answer', reason: 'The language model is out of credit.' });
    expect(c.context.liveLine).toBe('');
    expect(c.context.lines).toEqual([{ role: 'user', text: 'Hi.', utteranceId: 1 }]);
    expect(c.recogniserOn).toBe(true);
  });

  it('lets what was already voiced play out when the stream fails mid-answer, then returns the turn', () => {
    const c = conversation().user('Hi.').streamWords('Hello there. And then ').starts(0);
    c.answerFails('The connection dropped.');
    expect(c.turn).toBe('speaking');
    expect(c.spoken).toHaveLength(1);
    c.ends(0);
    expect(c.turn).toBe('listening');
    expect(c.context.lines.at(-1)?.text).toBe('Hello there. And then');
  });

  it('clears the last problem when the next question is asked', () => {
    const c = conversation().user('Hi.').answerFails('Busy.').user('Again?');
    expect(c.context.problem).toBeNull();
  });

  it('gives up waiting for a first word after the answer patience, aborting the request', () => {
    const c = conversation({ delays: { answerPatience: 5_000 } }).user('Hi.');
    c.wait(4_999);
    expect(c.turn).toBe('thinking');
    c.wait(1);
    expect(c.turn).toBe('listening');
    expect(c.stream.aborted).toBe(true);
    expect(c.context.problem?.kind).toBe('answer');
    expect(c.context.problem?.reason).toMatch(/ask again/);
  });

  it('does not give up on an answer whose words are arriving', () => {
    const c = conversation({ delays: { answerPatience: 5_000 } }).user('Hi.').deltas('Hmm');
    c.wait(10_000);
    expect(c.turn).toBe('thinking');
    expect(c.stream.aborted).toBe(false);
  });

  it('shows a recogniser error and falls back to typing without losing the conversation', () => {
    const c = conversation().types('Hi.').bot('Hello.').plays();
    c.send({ type: 'recogniser.failed', error: 'network' });
    expect(c.context.typing).toBe('failed');
    expect(c.context.problem?.kind).toBe('recogniser');
    expect(c.context.problem?.reason).toMatch(/typed/);
    expect(c.context.lines).toHaveLength(2);
    c.send({ type: 'recogniser.failed', error: 'something-new' });
    expect(c.context.problem?.reason).toMatch(/something-new/);
  });

  it('re-speaks what was not yet heard on the device when the endpoint voice fails, and stays there', () => {
    const c = conversation({ voice: 'endpoint' }).user('Hi.').bot('Hello there. How are you today? Fine weather.');
    expect(c.spoken.map((r) => r.voice)).toEqual(['endpoint', 'endpoint']);
    c.starts(0).ends(0).clearEffects();
    c.send({ type: 'speaker.failed', utteranceId: 1, piece: 1, voice: 'endpoint', reason: 'The voice service answered 502.' });
    expect(c.spoken).toEqual([
      { utteranceId: 1, piece: 1, text: 'How are you today? Fine weather.', voice: 'device', steps: 8, floor: 8 },
    ]);
    expect(c.context.voice).toBe('device');
    expect(c.context.problem).toEqual({ kind: 'speaker', reason: 'The voice service answered 502.' });
    c.starts(1).ends(1);
    expect(c.turn).toBe('listening');
    c.user('Again.').bot('Sure.');
    expect(c.spoken.at(-1)?.voice).toBe('device');
  });

  it('counts a piece the device voice could not make as done, so the turn still returns', () => {
    const c = conversation().user('Hi.').bot('Hello there.');
    c.send({ type: 'speaker.failed', utteranceId: 1, piece: 0, voice: 'device', reason: 'The voice model failed to load.' });
    expect(c.turn).toBe('listening');
    expect(c.context.problem).toEqual({ kind: 'speaker', reason: 'The voice model failed to load.' });
    expect(c.context.lines.at(-1)?.text).toBe('Hello there.');
  });

  it('refuses to start with a talk setting a person must fix, saying which', () => {
    const actor = createActor(conversationMachine, { input: { recogniser: true, say: englishSay, talk: { steps: 0 } } });
    const errors: unknown[] = [];
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    expect(actor.getSnapshot().status).toBe('error');
    expect(errors).toEqual([new OptionError('voice.steps', 0, 'a whole number from 1 to 64')]);
  });

  it('fails loudly when the app forgot to provide an effect', () => {
    const actor = createActor(conversationMachine, { input: { recogniser: true, say: englishSay } });
    const errors: Error[] = [];
    actor.subscribe({ error: (error) => errors.push(error as Error) });
    actor.start();
    expect(errors[0]?.message).toMatch(/'startRecogniser' was not provided/);
  });
});
