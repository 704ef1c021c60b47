/**
 * What the chat door reads from an OpenAI chat-completions request, validated. Only what the door
 * uses is checked: `system`/`developer`/`tool` messages, `tools`, `tool_choice`, `model`,
 * `max_tokens`, `max_completion_tokens`, `temperature` and every other sampling field are ignored
 * rather than refused, since every OpenAI SDK sends some and the bot file decides them all. A
 * refusal names the field at fault in the words of the request (`## requests`).
 */
import { ChatRequestError } from './errors';
import { isRecord } from '../../common/isRecord';
import { say } from '../words/words';
import type { Words } from '../words/words';

/** One message as the door sends it upstream: text only. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The conversation a client may supply: its own turns, never a system prompt. */
export interface ConversationMessage extends ChatMessage {
  role: 'user' | 'assistant';
}

export interface ChatRequest {
  /** The client's user and assistant turns, in order; at least one is the person's. */
  messages: ConversationMessage[];
  /** `stream: true`: answer as server-sent `chat.completion.chunk` events. Default false. */
  stream: boolean;
  /** `stream_options.include_usage`: end the stream with a usage chunk. Default false. */
  includeUsage: boolean;
}

/** Roles a client may send whose messages the door drops: the bot's file decides the prompt and there are no tools. */
const IGNORED_ROLES = new Set(['system', 'developer', 'tool', 'function']);

/** The request in `body` (already parsed JSON), or a `ChatRequestError` naming the field at fault in `words`. */
export function parseChatRequest(body: unknown, words: Words): ChatRequest {
  if (!isRecord(body)) throw new ChatRequestError(say(words, 'requests.not-object'), null);
  const { messages, stream, stream_options: streamOptions } = body;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatRequestError(say(words, 'requests.messages-empty'), 'messages');
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
    throw new ChatRequestError(say(words, 'requests.not-flag', { field: 'stream' }), 'stream');
  }
  let includeUsage = false;
  if (streamOptions !== undefined && streamOptions !== null) {
    if (!isRecord(streamOptions)) throw new ChatRequestError(say(words, 'requests.not-record', { field: 'stream_options' }), 'stream_options');
    const include = streamOptions.include_usage;
    if (include !== undefined && include !== null && typeof include !== 'boolean') {
      throw new ChatRequestError(say(words, 'requests.not-flag', { field: 'stream_options.include_usage' }), 'stream_options.include_usage');
    }
    includeUsage = include === true;
  }

  const turns: ConversationMessage[] = [];
  messages.forEach((message: unknown, index) => {
    const at = `messages[${index}]`;
    if (!isRecord(message)) throw new ChatRequestError(say(words, 'requests.message-shape', { field: at }), at);
    const { role } = message;
    if (typeof role !== 'string') throw new ChatRequestError(say(words, 'requests.not-text', { field: `${at}.role` }), `${at}.role`);
    if (IGNORED_ROLES.has(role)) return;
    if (role !== 'user' && role !== 'assistant') {
      throw new ChatRequestError(say(words, 'requests.role-unknown', { field: `${at}.role` }), `${at}.role`);
    }
    // An assistant turn that only called tools has no content; there is nothing of it to replay.
    if (role === 'assistant' && (message.content === null || message.content === undefined)) return;
    const content = textOf(message.content, `${at}.content`, words);
    if (role === 'assistant' && content === '') return;
    turns.push({ role, content });
  });
  if (!turns.some((message) => message.role === 'user')) {
    throw new ChatRequestError(say(words, 'requests.no-user-message'), 'messages');
  }
  return { messages: turns, stream: stream === true, includeUsage };
}

/** A message's content as one string: a string, or an array of text parts joined by line breaks. */
function textOf(content: unknown, at: string, words: Words): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    throw new ChatRequestError(say(words, 'requests.content-shape', { field: at }), at);
  }
  return content
    .map((part: unknown, index) => {
      const partAt = `${at}[${index}]`;
      if (!isRecord(part) || part.type !== 'text') {
        throw new ChatRequestError(say(words, 'requests.part-shape', { field: partAt }), `${partAt}.type`);
      }
      if (typeof part.text !== 'string') throw new ChatRequestError(say(words, 'requests.not-text', { field: `${partAt}.text` }), `${partAt}.text`);
      return part.text;
    })
    .join('\n');
}

/** The last thing the person said: what a turn answers. */
export function lastQuestion(messages: readonly ConversationMessage[]): string {
  return messages.findLast((message) => message.role === 'user')?.content ?? '';
}
