/**
 * Tool calls as a stream delivers them, put back together. Providers differ, and each of these has
 * been seen: the id and name in the first piece and the arguments spread over many; a whole call in
 * one piece; parallel calls at indexes 0, 1, 2…; parallel calls all at index 0, each with a new id
 * (or with no id, only a new name); the same id repeated on every piece; no index at all; no id at
 * all. So: pieces join the call at their index; a new non-empty id, or a name where the call there
 * already has one, starts a new call at that index (names arrive whole: none is sent in pieces);
 * and a call without an id gets one. Whether a turn is a tool turn is decided from the calls seen, never `finish_reason`.
 */

/** One piece of a streamed tool call (`choices[0].delta.tool_calls[i]`). */
export interface ToolCallPiece {
  index?: number;
  id?: string;
  name?: string;
  arguments?: string;
}

export interface ToolCall {
  id: string;
  /** The function's name as the model wrote it. */
  name: string;
  /** The arguments as a JSON string, as the model wrote them (not yet parsed or trusted). */
  arguments: string;
}

/**
 * Whether a piece with `id` and `name` begins a new call where `current` is open: a different id;
 * or, with no id, a name where the call already has one — unless it repeats that name while the
 * arguments are still arriving (a provider that repeats the name on every piece).
 */
function startsAnother(current: ToolCall, id: string, name: string): boolean {
  if (id !== '' && current.id !== '') return id !== current.id;
  if (name === '' || current.name === '') return false;
  return name !== current.name || isWholeJson(current.arguments);
}

function isWholeJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export class ToolCallAccumulator {
  readonly #calls: ToolCall[] = [];
  /** Index in the stream → position in `#calls` of the call now open at it. */
  readonly #open = new Map<number, number>();

  push(piece: ToolCallPiece): void {
    const index = piece.index ?? 0;
    const id = piece.id ?? '';
    let at = this.#open.get(index);
    const current = at === undefined ? undefined : this.#calls[at];
    if (current === undefined || startsAnother(current, id, piece.name ?? '')) {
      at = this.#calls.push({ id, name: '', arguments: '' }) - 1;
      this.#open.set(index, at);
    }
    const call = this.#calls[at as number] as ToolCall;
    if (call.id === '' && id !== '') call.id = id;
    if (piece.name !== undefined && piece.name !== '' && call.name === '') call.name = piece.name;
    if (piece.arguments !== undefined) call.arguments += piece.arguments;
  }

  get size(): number {
    return this.#calls.length;
  }

  /** The calls so far, in the order they began; a call with no id is given `call_<n>`. */
  calls(): ToolCall[] {
    return this.#calls.map((call, n) => ({ ...call, id: call.id === '' ? `call_${String(n)}` : call.id }));
  }
}
