import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('half-duplex recogniser', () => {
  it('keeps the recogniser off for as long as any assistant audio is audible, and restarts it once drained', () => {
    const c = conversation().user('Hi.').bot('One two three. Four five six.').clearEffects();
    c.starts(0);
    expect(c.effects).toEqual([{ type: 'stopRecogniser' }]);
    c.ends(0).starts(1);
    expect(c.count('startRecogniser')).toBe(0);
    c.ends(1);
    expect(c.effects.at(-1)).toEqual({ type: 'startRecogniser' });
    expect(c.recogniserOn).toBe(true);
  });

  it('turns the recogniser on over the voice once the person is heard over it, until the turn ends', () => {
    const c = conversation().user('Hi.').bot('One two three. Four five six.').starts(0).clearEffects();
    expect(c.recogniserOn).toBe(false);
    c.send({ type: 'yielding.ducked' });
    expect(c.effects).toEqual([{ type: 'duckVoice', params: true }, { type: 'startRecogniser' }]);
    expect(c.recogniserOn).toBe(true);
    // Still on between pieces and for the rest of the answer...
    c.ends(0).starts(1);
    expect(c.recogniserOn).toBe(true);
    expect(c.count('stopRecogniser')).toBe(0);
    // ...and the next answer begins half-duplex again.
    c.ends(1).user('And then?').bot('Then seven.').starts(0);
    expect(c.recogniserOn).toBe(false);
  });

  it('keeps the recogniser on while thinking so the person can go on talking', () => {
    const c = conversation().clearEffects().user('Hi.');
    expect(c.count('stopRecogniser')).toBe(0);
    expect(c.recogniserOn).toBe(true);
  });

  it('restarts a recogniser that ends by itself while listening', () => {
    const c = conversation().clearEffects();
    c.send({ type: 'recogniser.ended' });
    expect(c.effects).toEqual([{ type: 'startRecogniser' }]);
    c.send({ type: 'recogniser.ended' });
    expect(c.count('startRecogniser')).toBe(2);
  });

  it('restarts after a silence or abort error the way it does after an end', () => {
    const c = conversation().clearEffects();
    c.send({ type: 'recogniser.failed', error: 'no-speech' });
    c.send({ type: 'recogniser.failed', error: 'aborted' });
    expect(c.effects).toEqual([{ type: 'startRecogniser' }, { type: 'startRecogniser' }]);
    expect(c.context.typing).toBeNull();
    expect(c.context.problem).toBeNull();
  });

  it('does not restart a recogniser that ended while the assistant was audible', () => {
    const c = conversation().user('Hi.').bot('Hello there.').starts(0).clearEffects();
    c.send({ type: 'recogniser.ended' });
    expect(c.effects).toEqual([]);
  });
});
