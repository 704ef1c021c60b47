/** What a passive page shows of offers: the server's cut of an answer, and the choice taken, whichever order they come in. */
import { describe, expect, it } from 'vitest';
import type { Offer } from '../../../common/conversation/choices';
import type { WindowEvent } from '../../../common/presence/protocol';
import { applyEvent, EMPTY_MIRROR, linesToTakeOver, mirrorView } from '../../../src/core/presence/mirror';
import type { Mirror } from '../../../src/core/presence/mirror';

const WHICH = 'Which list?\n\n- Shopping\n- To-do';
const offer: Offer = { id: 'line-9', question: 'Which list?', items: ['Shopping', 'To-do'], taken: null };
const started: WindowEvent = { kind: 'conversation', conversation: 'conv-a', threadId: 'thread-1', reopened: false };
const asked: WindowEvent = { kind: 'line', conversation: 'conv-a', line: { role: 'user', text: 'Add milk to my list.', utteranceId: 1 } };
const answered: WindowEvent = { kind: 'line', conversation: 'conv-a', line: { role: 'assistant', text: WHICH, utteranceId: 1 } };
const kept = (clientId = 'conv-a:1:assistant', threadId = 'thread-1'): WindowEvent => ({ kind: 'offer', threadId, clientId, text: 'Which list?', offer });
const taken: WindowEvent = { kind: 'choice', offer: 'line-9', taken: 0 };

const fold = (events: readonly WindowEvent[], from: Mirror = EMPTY_MIRROR) => events.reduce(applyEvent, from);
const last = (mirror: Mirror) => mirrorView(mirror).lines.at(-1);

describe('offers in the mirror', () => {
  it('shows an answer’s words and its choices once the server has kept them, and the one taken', () => {
    const offered = fold([started, asked, answered, kept()]);
    expect(last(offered)).toEqual({ role: 'assistant', text: 'Which list?', utteranceId: 1, offer });
    expect(last(fold([taken], offered))?.offer?.taken).toBe(0);
  });

  it('keeps the server’s cut when the page’s own word of the line comes after it', () => {
    const mirror = fold([started, asked, kept(), answered]);
    expect(mirrorView(mirror).lines).toEqual([
      { role: 'user', text: 'Add milk to my list.', utteranceId: 1 },
      { role: 'assistant', text: 'Which list?', utteranceId: 1, offer },
    ]);
  });

  it('knows the conversation by its thread, or by the key its lines were kept under', () => {
    const fresh: WindowEvent = { kind: 'conversation', conversation: 'conv-a', threadId: null, reopened: false };
    expect(last(fold([fresh, asked, answered, kept()]))?.offer).toEqual(offer);
    expect(last(fold([started, asked, answered, kept('other:1:assistant')]))?.offer).toEqual(offer);
  });

  it('leaves another conversation’s offer, a line of the person’s, a later part and a clientId it did not make alone', () => {
    const before = fold([started, asked, answered]);
    for (const clientId of ['other:1:assistant', 'conv-a:1:user', 'conv-a:1:assistant:1', 'made elsewhere']) {
      expect(fold([kept(clientId, 'thread-2')], before)).toBe(before);
    }
    expect(fold([kept()], EMPTY_MIRROR)).toBe(EMPTY_MIRROR);
    expect(fold([taken], before)).toBe(before);
  });

  it('is taken over with its offer, by the page that becomes the active one', () => {
    expect(linesToTakeOver(fold([started, asked, answered, kept(), taken])).at(-1)?.offer?.taken).toBe(0);
  });
});
