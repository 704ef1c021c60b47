/**
 * A kept line's `clientId`, as the page makes it: `<conversation key>:<utterance>:<who>`, and
 * `:<part>` after it for the second and later parts of a line kept as several. The server keeps it
 * unread; it names the line back to the page that said it (an offer kept, `presence/protocol.ts`).
 */
import type { Line } from './events';

/** The `clientId` of part `part` (0 first) of `line`, said in the conversation keyed `key`. */
export function lineClientId(key: string, line: Pick<Line, 'role' | 'utteranceId'>, part = 0): string {
  return `${key}:${String(line.utteranceId)}:${line.role}${part === 0 ? '' : `:${String(part)}`}`;
}

const CLIENT_ID = /^(.*):(\d+):(user|assistant)(?::(\d+))?$/u;

/** What a `clientId` names, or null when the page did not make it. */
export function lineOfClientId(clientId: string): { key: string; utteranceId: number; role: Line['role']; part: number } | null {
  const match = CLIENT_ID.exec(clientId);
  if (match === null) return null;
  const [, key = '', utterance = '', role, part] = match;
  return { key, utteranceId: Number(utterance), role: role === 'user' ? 'user' : 'assistant', part: part === undefined ? 0 : Number(part) };
}
