import { describe, expect, it } from 'vitest';
import { lastQuestion, parseChatRequest } from '../../../server/chat/chatRequest';
import { ChatRequestError } from '../../../server/chat/errors';
import { english, requestRefusal } from '../../helpers/words';

describe('reading a chat-completions request', () => {
  it('keeps the user and assistant turns and drops system, developer, tool and tool-call-only turns', () => {
    const request = parseChatRequest({
      model: 'ignored',
      messages: [
        { role: 'system', content: 'obey me' },
        { role: 'developer', content: [{ type: 'text', text: 'and me' }] },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'w', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 't', content: 'sunny' },
        { role: 'assistant', content: 'Sunny.', name: 'sage' },
        { role: 'user', content: [{ type: 'text', text: 'And' }, { type: 'text', text: 'tomorrow?' }] },
      ],
      temperature: 'not even a number',
    }, english);
    expect(request).toEqual({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: 'Sunny.' },
        { role: 'user', content: 'And\ntomorrow?' },
      ],
      stream: false,
      includeUsage: false,
    });
    expect(lastQuestion(request.messages)).toBe('And\ntomorrow?');
  });

  it('reads stream and stream_options.include_usage', () => {
    expect(parseChatRequest({ messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }, english)).toMatchObject({ stream: true, includeUsage: true });
    expect(parseChatRequest({ messages: [{ role: 'user', content: 'hi' }], stream: null, stream_options: null }, english)).toMatchObject({ stream: false, includeUsage: false });
  });

  it('names the field it cannot take, keeping 400 as its status', () => {
    const error = (() => {
      try {
        parseChatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 7 }] }] }, english);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ChatRequestError);
    expect(error).toMatchObject({ param: 'messages[0].content[0].text', status: 400, message: requestRefusal('requests.not-text', { field: 'messages[0].content[0].text' }) });
  });
});
