/**
 * What the chat door reads from an OpenAI chat-completions request, validated. Only what the door
 * uses is checked: `system`/`developer`/`tool` messages, `tools`, `tool_choice`, `model`,
 * `max_tokens`, `max_completion_tokens`, `temperature` and every other sampling field are ignored
 * rather than refused, since every OpenAI SDK sends some and the bot file decides them all.
 */
import { ChatRequestError } from './errors';
import { isRecord } from '../../common/isRecord';

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

/** The request in `body` (already parsed JSON), or a `ChatRequestError` naming the field at fault. */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!isRecord(body)) throw new ChatRequestError('The request body must be a JSON object.', null);
  const { messages, stream, stream_options: streamOptions } = body;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatRequestError('messages must be a non-empty array of {role, content} objects.', 'messages');
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
    throw new ChatRequestError('stream must be true or false.', 'stream');
  }
  let includeUsage = false;
  if (streamOptions !== undefined && streamOptions !== null) {
    if (!isRecord(streamOptions)) throw new ChatRequestError('stream_options must be an object.', 'stream_options');
    const include = streamOptions.include_usage;
    if (include !== undefined && include !== null && typeof include !== 'boolean') {
      throw new ChatRequestError('stream_options.include_usage must be true or false.', 'stream_options.include_usage');
    }
    includeUsage = include === true;
  }

  const turns: ConversationMessage[] = [];
  messages.forEach((message: unknown, index) => {
    const at = `messages[${index}]`;
    if (!isRecord(message)) throw new ChatRequestError(`${at} must be an object with a role and content.`, at);
    const { role } = message;
    if (typeof role !== 'string') throw new ChatRequestError(`${at}.role must be a string.`, `${at}.role`);
    if (IGNORED_ROLES.has(role)) return;
    if (role !== 'user' && role !== 'assistant') {
      throw new ChatRequestError(`${at}.role must be one of user, assistant, system, developer or tool.`, `${at}.role`);
    }
    // An assistant turn that only called tools has no content; there is nothing of it to replay.
    if (role === 'assistant' && (message.content === null || message.content === undefined)) return;
    const content = textOf(message.content, `${at}.content`);
    if (role === 'assistant' && content === '') return;
    turns.push({ role, content });
  });
  if (!turns.some((message) => message.role === 'user')) {
    throw new ChatRequestError('messages must hold at least one user message for the bot to answer.', 'messages');
  }
  return { messages: turns, stream: stream === true, includeUsage };
}

/** A message's content as one string: a string, or an array of text parts joined by line breaks. */
function textOf(content: unknown, at: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    throw new ChatRequestError(`${at} must be a string or an array of text parts.`, at);
  }
  return content
    .map((part: unknown, index) => {
      const partAt = `${at}[${index}]`;
      if (!isRecord(part) || part.type !== 'text') {
        throw new ChatRequestError(`${partAt} must be a {type: "text", text} part; this door takes text only.`, `${partAt}.type`);
      }
      if (typeof part.text !== 'string') throw new ChatRequestError(`${partAt}.text must be a string.`, `${partAt}.text`);
      return part.text;
    })
    .join('\n');
}

/** The last thing the person said: what a turn answers. */
export function lastQuestion(messages: readonly ConversationMessage[]): string {
  return messages.findLast((message) => message.role === 'user')?.content ?? '';
}
