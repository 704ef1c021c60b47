/**
 * A stand-in for Anthropic's Messages API on 127.0.0.1: a real HTTP server that records what it
 * was sent and answers as Anthropic does — an event stream (`event:` and `data:` lines, from
 * `message_start` to `message_stop`, with `ping`s) when asked to stream, one message otherwise, and
 * `{type: "error", error: {type, message}}` with its status when it fails. `anthropicStandIn.test.ts`
 * has the official `@anthropic-ai/sdk` read it, so it cannot drift from the real shape.
 */
import type { ServerResponse } from 'node:http';
import { deferred, listen, whenArrived } from './localServers';
import type { Deferred, Listening, Received } from './localServers';

/** One content block of a scripted answer: text in pieces, or a tool use whose input JSON arrives in pieces. */
type ScriptedBlock = { text: readonly string[] } | { toolUse: { id: string; name: string; json: readonly string[] } };

/** A scripted answer: its blocks, why it stopped, and its usage. */
export interface ScriptedMessage {
  blocks: readonly ScriptedBlock[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';
  inputTokens?: number;
  outputTokens?: number;
}

/** What a script writes back. */
class AnthropicReply {
  constructor(
    readonly res: ServerResponse,
    private readonly model: string,
    private readonly streaming: boolean,
  ) {}

  /** An HTTP error in Anthropic's shape. */
  fail(status: number, type: string, message: string): void {
    this.res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_standin' });
    this.res.end(JSON.stringify({ type: 'error', error: { type, message } }));
  }

  /** `message` whole, or as its event stream, as the request asked. */
  answer(message: ScriptedMessage): void {
    if (this.streaming) this.stream(message);
    else this.whole(message);
  }

  /** Opens the event stream with `message_start` (and a `ping`), for a script that writes the rest itself. */
  open(inputTokens = 10): void {
    this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_standin' });
    this.event('message_start', {
      type: 'message_start',
      message: { id: 'msg_standin', type: 'message', role: 'assistant', model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1 } },
    });
    this.event('ping', { type: 'ping' });
  }

  /** One event, as Anthropic frames it. */
  event(name: string, data: Record<string, unknown>): void {
    this.res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Drops the connection mid-reply. */
  destroy(): void {
    this.res.socket?.destroy();
  }

  private stream(message: ScriptedMessage): void {
    this.open(message.inputTokens ?? 10);
    message.blocks.forEach((block, index) => {
      if ('text' in block) {
        this.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const text of block.text) this.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      } else {
        const { id, name, json } = block.toolUse;
        this.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } });
        for (const partial of json) this.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } });
      }
      this.event('content_block_stop', { type: 'content_block_stop', index });
    });
    this.event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: message.stopReason ?? stopReasonOf(message), stop_sequence: null },
      usage: { output_tokens: message.outputTokens ?? 5 },
    });
    this.event('message_stop', { type: 'message_stop' });
    this.res.end();
  }

  private whole(message: ScriptedMessage): void {
    this.res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_standin' });
    this.res.end(
      JSON.stringify({
        id: 'msg_standin',
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: message.blocks.map((block) =>
          'text' in block
            ? { type: 'text', text: block.text.join('') }
            : { type: 'tool_use', id: block.toolUse.id, name: block.toolUse.name, input: JSON.parse(block.toolUse.json.join('') || '{}') as unknown },
        ),
        stop_reason: message.stopReason ?? stopReasonOf(message),
        stop_sequence: null,
        usage: { input_tokens: message.inputTokens ?? 10, output_tokens: message.outputTokens ?? 5 },
      }),
    );
  }
}

function stopReasonOf(message: ScriptedMessage): 'end_turn' | 'tool_use' {
  return message.blocks.some((block) => 'toolUse' in block) ? 'tool_use' : 'end_turn';
}

export type AnthropicScript = (reply: AnthropicReply, received: Received) => void | Promise<void>;

export interface AnthropicStandIn extends Listening {
  /** The base URL as the SDK and a `kind: "anthropic"` provider take it (the server's root). */
  baseUrl: string;
  received: Received[];
  /** Resolves with each request as it arrives. */
  next: () => Promise<Received>;
  /** Replaces the script. */
  script: (script: AnthropicScript) => void;
}

/** The stand-in, answering each request with `script`; only `POST /v1/messages` is served. */
export async function startAnthropicStandIn(script: AnthropicScript): Promise<AnthropicStandIn> {
  let current = script;
  const received: Received[] = [];
  const waiters: Deferred<Received>[] = [];
  let taken = 0;
  const server = await listen((req, res) => {
    whenArrived(req, res, ({ text, closed, ended }) => {
      if (req.method !== 'POST' || req.url !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'Not found.' } }));
        return;
      }
      const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      const one: Received = { path: req.url, headers: req.headers, body, closed, ended };
      received.push(one);
      const waiter = waiters.shift();
      if (waiter !== undefined) {
        taken += 1;
        waiter.resolve(one);
      }
      const reply = new AnthropicReply(res, typeof body.model === 'string' ? body.model : 'unknown', body.stream === true);
      void Promise.resolve(current(reply, one)).catch(() => {
        res.destroy();
      });
    });
  });
  return {
    ...server,
    baseUrl: server.url,
    received,
    next: () => {
      const ready = received[taken];
      if (ready !== undefined) {
        taken += 1;
        return Promise.resolve(ready);
      }
      const waiter = deferred<Received>();
      waiters.push(waiter);
      return waiter.promise;
    },
    script: (next) => {
      current = next;
    },
  };
}

/** A script that answers `message` to every request. */
export const anthropicAnswering = (message: ScriptedMessage): AnthropicScript => (reply) => {
  reply.answer(message);
};
