/**
 * The page's side of the chat door: `POST /v1/chat/completions` with the conversation grant,
 * streamed, read as server-sent events over fetch. Tokens are yielded the moment they land, so the
 * chunker can hand the first sentence to the voice before the answer has ended. Aborting the signal
 * (a barge-in) cancels the request, and the server aborts its upstream in turn.
 *
 * Beside the unnamed chat chunks the door sends named events (common/acting/protocol.ts): a verb
 * ran (`confab.verb`), or one waits for the person's yes (`confab.confirm`). They are yielded in
 * stream order with the text; an event of a name this page does not know is passed over.
 */
import { DOOR_EVENTS } from '../../common/acting/protocol';
import { isPendingAction } from '../../common/acting/protocol';
import type { PendingActionEvent, VerbRanEvent } from '../../common/acting/protocol';
import type { ChatMessage } from '../../common/conversation/events';
import { isRecord } from '../../common/isRecord';
import { sayWord } from './words';

/** Why an answer could not be had; `expired` means a new grant would help. */
export type AnswerFailure = 'expired' | 'refused' | 'unreachable' | 'broken';

export class AnswerError extends Error {
  override readonly name = 'AnswerError';
  constructor(
    message: string,
    readonly failure: AnswerFailure,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface AnswerRequest {
  grant: string;
  messages: readonly ChatMessage[];
  signal: AbortSignal;
  /**
   * The page's key for this conversation (`x-confab-conversation`): the same for every turn of it,
   * across a renewed grant and a retried turn, so the door keeps its recent verbs in scope and a
   * retried write is done once.
   */
  conversationKey?: string;
  /** The person's IANA time zone (`x-confab-time-zone`), e.g. `Europe/Paris`, for verbs that read a time. */
  timeZone?: string;
  /**
   * The turn's id (`x-confab-turn`), made when the person finished saying it: the same for every
   * try of this turn (a renewed grant, a retry), new for anything said anew, so the door writes
   * once per turn and never by the words.
   */
  turn?: string;
  /**
   * The language the person is speaking (`x-confab-language`), the reader's setting: the door says
   * its own words (a cut answer's ending, the filler, a confirmation's prompt) in it.
   */
  language?: string;
}

/** What the door streams, in order: answer text, a verb that ran, a verb waiting for a yes. */
export type AnswerItem =
  | { type: 'text'; text: string }
  | { type: 'verb'; event: VerbRanEvent }
  | { type: 'confirm'; action: PendingActionEvent };

/** The request headers the door reads beside the grant. */
export const DOOR_HEADERS = { conversationKey: 'x-confab-conversation', timeZone: 'x-confab-time-zone', turn: 'x-confab-turn', language: 'x-confab-language' } as const;

/**
 * The answer as it streams: its text piece by piece, with the door's named events where they
 * came. Ends at `[DONE]`; throws `AnswerError` for a refusal, a failure the door said (as an HTTP
 * error, or as an error event once the stream had begun) or a broken stream, and the signal's
 * reason when aborted.
 */
export async function* streamAnswer(request: AnswerRequest, fetcher: typeof fetch = (input, init) => fetch(input, init)): AsyncGenerator<AnswerItem, void> {
  const headers: Record<string, string> = { authorization: `Bearer ${request.grant}`, 'content-type': 'application/json', accept: 'text/event-stream' };
  if (request.conversationKey !== undefined && request.conversationKey !== '') headers[DOOR_HEADERS.conversationKey] = request.conversationKey;
  if (request.timeZone !== undefined && request.timeZone !== '') headers[DOOR_HEADERS.timeZone] = request.timeZone;
  if (request.turn !== undefined && request.turn !== '') headers[DOOR_HEADERS.turn] = request.turn;
  if (request.language !== undefined && request.language !== '') headers[DOOR_HEADERS.language] = request.language;
  let response: Response;
  try {
    response = await fetcher('/v1/chat/completions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'bot', stream: true, messages: request.messages }),
      signal: request.signal,
    });
  } catch (cause) {
    if (request.signal.aborted) throw request.signal.reason;
    throw new AnswerError(sayWord('page-answers.unreachable'), 'unreachable', undefined, { cause });
  }
  if (!response.ok) throw await failureOf(response);
  const body = response.body;
  if (body === null) throw new AnswerError(sayWord('page-answers.empty'), 'broken', response.status);

  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  request.signal.addEventListener('abort', onAbort, { once: true });
  let buffered = '';
  let done = false;
  try {
    while (!done) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (cause) {
        if (request.signal.aborted) throw request.signal.reason;
        throw new AnswerError(sayWord('page-answers.dropped'), 'broken', response.status, { cause });
      }
      if (request.signal.aborted) throw request.signal.reason;
      if (chunk.done) break;
      buffered += chunk.value;
      const events = buffered.split(/\r?\n\r?\n/);
      buffered = events.pop() ?? '';
      for (const event of events) {
        const { name, data } = parsed(event);
        if (data === undefined) continue;
        if (name !== undefined) {
          const item = namedItem(name, data);
          if (item !== undefined) yield item;
          continue;
        }
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const text = contentOf(data);
        if (text !== '') yield { type: 'text', text };
      }
    }
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    if (!done) void reader.cancel().catch(() => undefined);
  }
  if (!done) throw new AnswerError(sayWord('page-answers.unfinished'), 'broken', response.status);
}

/**
 * One event's name (its `event:` line; undefined for the default `message`) and its `data:` lines
 * joined (undefined for a comment or a keep-alive).
 */
function parsed(event: string): { name: string | undefined; data: string | undefined } {
  const fields = event.split(/\r?\n/);
  const value = (line: string, field: string) => line.slice(field.length + 1).replace(/^ /, '');
  const named = fields.filter((line) => line.startsWith('event:')).map((line) => value(line, 'event')).at(-1);
  const data = fields.filter((line) => line.startsWith('data:')).map((line) => value(line, 'data'));
  return { name: named === undefined || named === '' || named === 'message' ? undefined : named, data: data.length === 0 ? undefined : data.join('\n') };
}

/**
 * The item a named event stands for, or undefined for a name this page does not know. A known
 * event that is not its shape is a broken stream, as a garbled chunk is.
 */
function namedItem(name: string, data: string): AnswerItem | undefined {
  if (name !== DOOR_EVENTS.verb && name !== DOOR_EVENTS.confirm) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch (cause) {
    throw new AnswerError(sayWord('page-answers.garbled'), 'broken', undefined, { cause });
  }
  if (name === DOOR_EVENTS.verb && isVerbRan(body)) return { type: 'verb', event: body };
  if (name === DOOR_EVENTS.confirm && isPendingAction(body)) return { type: 'confirm', action: body };
  throw new AnswerError(sayWord('page-answers.garbled'), 'broken');
}

function isVerbRan(value: unknown): value is VerbRanEvent {
  return isRecord(value) && typeof value.verb === 'string' && typeof value.ok === 'boolean' && (value.code === undefined || typeof value.code === 'string');
}

/** The text a `chat.completion.chunk` adds; a chunk that is not one is a broken stream. */
function contentOf(data: string): string {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (cause) {
    throw new AnswerError(sayWord('page-answers.garbled'), 'broken', undefined, { cause });
  }
  if (typeof chunk !== 'object' || chunk === null) throw new AnswerError(sayWord('page-answers.garbled'), 'broken');
  const error = (chunk as { error?: unknown }).error;
  if (isRecord(error)) throw streamedFailure(error);
  const choices = (chunk as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return '';
  let text = '';
  for (const choice of choices as unknown[]) {
    const content = (choice as { delta?: { content?: unknown } } | null)?.delta?.content;
    if (typeof content === 'string') text += content;
  }
  return text;
}

/** What the door said, when it said anything. */
function sentenceOf(message: string): string | undefined {
  const said = message.trim();
  return said === '' ? undefined : said;
}

/**
 * The page's sentence for a failure of `kind`. A refusal is said in the door's own sentence (in the
 * person's language, since the turn named it); a passing failure quotes it inside the page's own.
 */
function failureSaid(kind: Exclude<AnswerFailure, 'broken'>, said: string | undefined, status?: number): AnswerError {
  if (kind === 'expired') return new AnswerError(sayWord('page-answers.expired'), 'expired', status);
  if (kind === 'unreachable') return new AnswerError(said === undefined ? sayWord('page-answers.busy') : sayWord('page-answers.busy-said', { said: said.replace(/\.+$/, '') }), 'unreachable', status);
  if (said !== undefined) return new AnswerError(said, 'refused', status);
  return new AnswerError(status === undefined ? sayWord('page-answers.refused-silent') : sayWord('page-answers.refused-status', { status }), 'refused', status);
}

/**
 * A failure the door said in the stream, its headers having gone out while the provider was asked
 * (OpenAI's `{ error: { message, type, code } }` as an event): said as the same failure answered as
 * an HTTP error would be.
 */
function streamedFailure(error: Record<string, unknown>): AnswerError {
  const said = typeof error.message === 'string' ? sentenceOf(error.message) : undefined;
  if (error.type === 'authentication_error') return failureSaid('expired', said);
  return failureSaid(error.type === 'api_error' || error.type === 'server_error' ? 'unreachable' : 'refused', said);
}

async function failureOf(response: Response): Promise<AnswerError> {
  let said: string | undefined;
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') said = sentenceOf(body.error.message);
  } catch {
    // The status alone is said.
  }
  const { status } = response;
  return failureSaid(status === 401 ? 'expired' : status >= 500 || status === 429 ? 'unreachable' : 'refused', said, status);
}
