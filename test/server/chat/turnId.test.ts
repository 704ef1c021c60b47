import { describe, expect, it } from 'vitest';
import { ChatRequestError } from '../../../server/chat/errors';
import { turnIdOf, turnKeyOf } from '../../../server/chat/turnId';
import { shippedWords } from '../../../server/words/loadWords';
import { english, requestRefusal } from '../../helpers/words';

const UUID = '6f1c2a4e-0d2b-4c6e-9a51-3b7d8e9f0a1b';

describe('a turn’s id', () => {
  it('is the page’s x-confab-turn, or the Idempotency-Key quoted or bare, or both when they agree', () => {
    expect(turnIdOf(UUID, undefined, english)).toBe(UUID);
    expect(turnIdOf(undefined, `"${UUID}"`, english)).toBe(UUID);
    expect(turnIdOf(undefined, UUID, english)).toBe(UUID);
    expect(turnIdOf(UUID, `"${UUID}"`, english)).toBe(UUID);
  });

  it('is a fresh random one for a request with neither: a turn of its own', () => {
    const first = turnIdOf(undefined, undefined, english);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(turnIdOf(undefined, undefined, english)).not.toBe(first);
  });

  it('refuses a malformed id, or two that differ, with a 400 and a sentence naming the header', () => {
    for (const [turn, key, header] of [['short', undefined, 'x-confab-turn'], [undefined, '', 'Idempotency-Key'], [`${UUID} `, undefined, 'x-confab-turn'], [undefined, 'x'.repeat(129), 'Idempotency-Key'], [UUID, 'b'.repeat(20), 'Idempotency-Key']] as const) {
      let thrown: unknown;
      try {
        turnIdOf(turn, key, english);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ChatRequestError);
      expect((thrown as ChatRequestError).status).toBe(400);
      expect((thrown as ChatRequestError).message).toContain(header);
    }
  });

  it('says its refusal in the words it is given', () => {
    const spanish = shippedWords().wordsIn('es');
    expect(() => turnIdOf('short', undefined, spanish)).toThrow(requestRefusal('requests.turn-id', { header: 'x-confab-turn' }, 'es'));
  });

  it('keys a turn by person, bot and conversation as well as its id', () => {
    const key = turnKeyOf({ person: 'p', bot: 'b', conversationKey: 'c', turn: UUID });
    expect(turnKeyOf({ person: 'p', bot: 'b', conversationKey: 'c', turn: UUID })).toBe(key);
    expect(turnKeyOf({ person: 'q', bot: 'b', conversationKey: 'c', turn: UUID })).not.toBe(key);
    expect(turnKeyOf({ person: 'p', bot: 'd', conversationKey: 'c', turn: UUID })).not.toBe(key);
    expect(turnKeyOf({ person: 'p', bot: 'b', conversationKey: undefined, turn: UUID })).not.toBe(key);
  });
});
