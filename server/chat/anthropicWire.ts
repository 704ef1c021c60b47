/**
 * Anthropic's Messages API, translated both ways: the door's OpenAI-shaped conversation (system
 * prompt, turns, the assistant's tool calls and each call's answer) becomes one Messages request;
 * Anthropic's stream events (or one whole message) become the door's `UpstreamEvent`s; and an
 * Anthropic-shaped history turns back into OpenAI's, so a conversation that began on either
 * provider can be replayed on the other halfway through. All but `anthropicWire` itself are pure.
 *
 * What differs, and is handled here: the system prompt is a field, not a message (every system
 * message, wherever it stands, goes there, in order); a tool call is a `tool_use` block in the
 * assistant's turn, beside its text; a tool's answer is a `tool_result` block in a user turn, and
 * consecutive answers share ONE such turn; turns must alternate, so consecutive turns of one role
 * are merged; a tool-use id must match `^[a-zA-Z0-9_-]+$`, so every id is sanitised by one
 * deterministic function on both sides (call and answer); arguments are an object, not a string
 * (empty, absent or not an object: `{}`); empty text blocks are refused, so none is sent.
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../../common/isRecord';
import { UpstreamStreamError } from './errors';
import { answerBodyOf, eventJsonOf } from './providerWire';
import type { PromptMessage, Provider, ProviderWire, Question, UpstreamEvent, UpstreamTool, WireRequest } from './providerWire';

export const anthropicWire: ProviderWire = {
  requestOf,
  async *eventsOf(response) {
    const body = await answerBodyOf(response);
    if ('whole' in body) {
      yield* eventsOfAnthropicMessage(body.whole);
      return;
    }
    // Every event's `data` names its type, so the SSE `event:` field is not needed.
    const reader = new AnthropicStreamReader();
    for await (const data of body.stream) yield* reader.read(eventJsonOf(data));
  },
};

/** The `anthropic-version` every request is sent with. */
const ANTHROPIC_VERSION = '2023-06-01';

/** `<baseUrl>/v1/messages` (or `/messages` after a `/v1`), or `baseUrl` itself when it already is that path. */
export function messagesUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (base.endsWith('/messages')) return base;
  return base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`;
}

/** The ceiling is always `max_tokens`, which Anthropic requires; a provider's `tokensField` does not apply. */
function requestOf(provider: Provider, question: Question): WireRequest {
  return {
    url: messagesUrl(provider.baseUrl),
    headers: { 'x-api-key': provider.apiKey, 'anthropic-version': ANTHROPIC_VERSION, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(anthropicRequestOf(question.messages, { model: question.model, maxTokens: question.answerTokens, stream: true, tools: question.tools })),
  };
}

interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
}

type AnthropicBlock = AnthropicTextBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** One Messages request, as posted to `<base>/v1/messages`. */
export interface AnthropicRequest {
  model: string;
  /** Required by Anthropic: the most tokens the answer may have. */
  max_tokens: number;
  system?: string;
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
  stream: boolean;
}

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * `id` as a tool-use id Anthropic takes: itself when it already matches `^[a-zA-Z0-9_-]+$`;
 * otherwise every other character becomes `_` and a digest of the original follows, so that two
 * ids differing only in those characters stay two ids. The same id always gives the same answer,
 * which is what keeps a call and its result paired.
 */
export function anthropicToolId(id: string): string {
  if (TOOL_ID.test(id)) return id;
  const digest = createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_')}_${digest}`;
}

/** A call's arguments as the object Anthropic wants: empty, absent, unparseable or not an object is `{}`. */
export function toolInputOf(args: string | undefined): Record<string, unknown> {
  if (args === undefined || args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * Placed before a conversation whose first turn is the assistant's (a context cut to its last
 * lines can start there), since a Messages conversation must open with the user.
 */
export const OPENING_USER_TEXT = '(The conversation so far.)';

/** The door's `messages` and `tools` as one Messages request for `model`, answering at most `maxTokens`. */
export function anthropicRequestOf(
  messages: readonly PromptMessage[],
  options: { model: string; maxTokens: number; stream: boolean; tools?: readonly UpstreamTool[] | undefined },
): AnthropicRequest {
  const system: string[] = [];
  const turns: AnthropicMessage[] = [];
  const add = (role: AnthropicMessage['role'], blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) {
      // Tool results lead their user turn, as Anthropic requires: words said after them follow.
      last.content.push(...blocks);
    } else {
      turns.push({ role, content: blocks });
    }
  };
  for (const message of messages) {
    if (message.role === 'system') {
      if (message.content !== '') system.push(message.content);
    } else if (message.role === 'tool') {
      add('user', [{ type: 'tool_result', tool_use_id: anthropicToolId(message.tool_call_id), content: message.content }]);
    } else if (message.role === 'user') {
      add('user', textBlocks(message.content));
    } else {
      const calls = 'tool_calls' in message ? message.tool_calls : [];
      add('assistant', [
        ...textBlocks(message.content),
        ...calls.map((call): AnthropicToolUseBlock => ({ type: 'tool_use', id: anthropicToolId(call.id), name: call.function.name, input: toolInputOf(call.function.arguments) })),
      ]);
    }
  }
  if (turns[0]?.role === 'assistant') turns.unshift({ role: 'user', content: [{ type: 'text', text: OPENING_USER_TEXT }] });
  return {
    model: options.model,
    max_tokens: options.maxTokens,
    ...(system.length === 0 ? {} : { system: system.join('\n\n') }),
    messages: turns,
    ...(options.tools === undefined || options.tools.length === 0 ? {} : { tools: options.tools.map(anthropicToolOf) }),
    stream: options.stream,
  };
}

function textBlocks(text: string | null): AnthropicTextBlock[] {
  // Anthropic refuses an empty (or all-space) text block.
  return text === null || text.trim() === '' ? [] : [{ type: 'text', text }];
}

function anthropicToolOf(tool: UpstreamTool): AnthropicTool {
  const { parameters } = tool.function;
  return { name: tool.function.name, description: tool.function.description, input_schema: { type: 'object', ...parameters } };
}

/**
 * An Anthropic-shaped conversation (its `system` and `messages`) in the door's OpenAI shape: the
 * system prompt first; a user turn's tool results as `tool` messages, in order, before its words;
 * an assistant turn's text and tool uses as one assistant message with `tool_calls`, the input
 * as a JSON string. Ids are kept as they are: Anthropic's fit OpenAI's rules.
 */
export function openAiHistoryOf(system: string | undefined, messages: readonly AnthropicMessage[]): PromptMessage[] {
  const out: PromptMessage[] = system === undefined || system === '' ? [] : [{ role: 'system', content: system }];
  for (const message of messages) {
    const text = message.content.filter((block): block is AnthropicTextBlock => block.type === 'text').map((block) => block.text).join('');
    if (message.role === 'user') {
      for (const block of message.content) {
        if (block.type === 'tool_result') out.push({ role: 'tool', tool_call_id: block.tool_use_id, content: block.content });
      }
      if (text !== '') out.push({ role: 'user', content: text });
      continue;
    }
    const uses = message.content.filter((block): block is AnthropicToolUseBlock => block.type === 'tool_use');
    if (uses.length === 0) {
      if (text !== '') out.push({ role: 'assistant', content: text });
      continue;
    }
    out.push({
      role: 'assistant',
      content: text === '' ? null : text,
      tool_calls: uses.map((use) => ({ id: use.id, type: 'function', function: { name: use.name, arguments: JSON.stringify(use.input) } })),
    });
  }
  return out;
}

/**
 * Anthropic's `stop_reason` in OpenAI's `finish_reason` words: the door reads `length` as a cut
 * answer and decides tool turns from the calls it saw, never from the reason.
 */
export function finishReasonOf(stopReason: string): string {
  switch (stopReason) {
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn and any reason added later: the model stopped.
      return 'stop';
  }
}

/**
 * Anthropic's stream events, one at a time, as the door's events. It keeps what the stream spreads
 * out: the input tokens `message_start` reports (joined with the output tokens of `message_delta`,
 * which are cumulative), and which content blocks are tool uses (a `content_block_delta` names only
 * its block's index). A tool use's block index is its call's index, so its pieces join one call.
 */
export class AnthropicStreamReader {
  #inputTokens = 0;
  #outputTokens = 0;
  readonly #toolBlocks = new Set<number>();

  /** The door's events for one stream event (its parsed `data`). Throws `UpstreamStreamError` for an `error` event or a shape it cannot read. */
  read(event: unknown): UpstreamEvent[] {
    if (!isRecord(event) || typeof event.type !== 'string') throw new UpstreamStreamError('The provider sent an event that is not an object with a type.');
    switch (event.type) {
      case 'message_start': {
        const message = isRecord(event.message) ? event.message : {};
        this.#noteUsage(message.usage);
        return [];
      }
      case 'content_block_start': {
        const index = typeof event.index === 'number' ? event.index : 0;
        const block = isRecord(event.content_block) ? event.content_block : {};
        if (block.type === 'tool_use') {
          this.#toolBlocks.add(index);
          const input = isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
          return [{ type: 'tool-call', piece: { index, ...(typeof block.id === 'string' ? { id: block.id } : {}), ...(typeof block.name === 'string' ? { name: block.name } : {}), arguments: input } }];
        }
        return block.type === 'text' && typeof block.text === 'string' && block.text !== '' ? [{ type: 'delta', text: block.text }] : [];
      }
      case 'content_block_delta': {
        const index = typeof event.index === 'number' ? event.index : 0;
        const delta = isRecord(event.delta) ? event.delta : {};
        if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') return [{ type: 'delta', text: delta.text }];
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && this.#toolBlocks.has(index)) {
          return [{ type: 'tool-call', piece: { index, arguments: delta.partial_json } }];
        }
        // Thinking, signatures and citations carry nothing the door says.
        return [];
      }
      case 'message_delta': {
        this.#noteUsage(event.usage);
        const delta = isRecord(event.delta) ? event.delta : {};
        const out: UpstreamEvent[] = [{ type: 'usage', usage: { promptTokens: this.#inputTokens, completionTokens: this.#outputTokens } }];
        if (typeof delta.stop_reason === 'string') out.push({ type: 'finish', reason: finishReasonOf(delta.stop_reason) });
        return out;
      }
      case 'error': {
        const error = isRecord(event.error) ? event.error : {};
        const type = typeof error.type === 'string' && /^[a-z_]{1,64}$/.test(error.type) ? ` (${error.type})` : '';
        throw new UpstreamStreamError(`The provider reported an error mid-stream${type}.`);
      }
      default:
        // content_block_stop, message_stop, ping, and event types added later.
        return [];
    }
  }

  /** Input tokens include what was read from and written to the prompt cache: every one is billed. */
  #noteUsage(usage: unknown): void {
    if (!isRecord(usage)) return;
    const input = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'].map((field) => usage[field]).filter((n): n is number => typeof n === 'number');
    if (input.length > 0) this.#inputTokens = input.reduce((sum, n) => sum + n, 0);
    if (typeof usage.output_tokens === 'number') this.#outputTokens = usage.output_tokens;
  }
}

/** One whole Messages answer (a request sent without `stream`, or a provider that ignored it) as the door's events. */
export function eventsOfAnthropicMessage(message: unknown): UpstreamEvent[] {
  if (!isRecord(message)) throw new UpstreamStreamError('The provider sent an answer that is not an object.');
  if (message.type === 'error') return new AnthropicStreamReader().read(message);
  const reader = new AnthropicStreamReader();
  const out: UpstreamEvent[] = [];
  reader.read({ type: 'message_start', message: { usage: message.usage } });
  const blocks: unknown[] = Array.isArray(message.content) ? message.content : [];
  blocks.forEach((block, index) => {
    out.push(...reader.read({ type: 'content_block_start', index, content_block: block }));
  });
  out.push(...reader.read({ type: 'message_delta', delta: { stop_reason: message.stop_reason }, usage: message.usage }));
  return out;
}
