import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('what the person says', () => {
  it('treats a typed question exactly like a spoken one', () => {
    const spoken = conversation().user('What time is it?');
    const typed = conversation().types('What time is it?');
    expect(typed.turn).toBe(spoken.turn);
    expect(typed.stream.request).toEqual(spoken.stream.request);
    expect(typed.context.liveLine).toBe(spoken.context.liveLine);
    expect(typed.effects.filter((e) => e.type === 'saveLine')).toEqual(
      spoken.effects.filter((e) => e.type === 'saveLine'),
    );
  });

  it('ignores blank input, spoken or typed', () => {
    const c = conversation().user('   ').types('\n\t');
    expect(c.turn).toBe('listening');
    expect(c.streams).toHaveLength(0);
  });

  it('ignores a blank line while an answer is on its way instead of interrupting it', () => {
    const c = conversation().user('Hi.').streamWords('Hello there. ').starts(0).types('  ');
    expect(c.turn).toBe('speaking');
    expect(c.stream.aborted).toBe(false);
  });

  it('trims the question before sending and keeping it', () => {
    const c = conversation().types('  Where am I?  ');
    expect(c.context.liveLine).toBe('Where am I?');
    expect(c.stream.request.messages.at(-1)).toEqual({ role: 'user', content: 'Where am I?' });
  });

  it('accepts typing while the microphone is muted', () => {
    const c = conversation({ muted: true }).types('Hello?');
    expect(c.turn).toBe('thinking');
    expect(c.recogniserOn).toBe(false);
  });
});
