/**
 * A provider's HTTP failure, read: whether it is the provider's own (so the next may be asked),
 * its machine-readable code, and — for a failure that is the site's to fix (no credits, a bad key,
 * a rate limit, a model that is not theirs to call) — the provider's own sentence, taken out of
 * whatever it came in: OpenAI's `{error: {message, code}}`, Anthropic's
 * `{type: "error", error: {type, message}}`, or plain text. The sentence is for the person who
 * asked, never for a log; any key it quotes is taken out first.
 */
import { isRecord } from '../../common/isRecord';

/** Longest provider error body read, in bytes. */
const ERROR_BODY_MAX = 8192;
/** Longest provider sentence passed on, in characters. */
const SENTENCE_MAX = 300;

const CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/** Codes some providers send with a 400 that mean "no such model here", not "bad request". */
const MODEL_MISSING_CODES = new Set(['model_not_found', 'model_not_available', 'invalid_model']);

/**
 * Anthropic's error types (and OpenAI's codes) that are the provider's own whatever the status:
 * a bad or unpermitted key, a model it does not have, a rate limit, no quota, its server failing
 * or overloaded (Anthropic's 529).
 */
const OWN_CODES = new Set([
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
  'insufficient_quota',
  ...MODEL_MISSING_CODES,
]);

/** How Anthropic (and others) say "no credits" in a 400: the account, not the request, is at fault. */
const NO_CREDITS = /credit balance|insufficient (credits|funds|quota)|billing/i;

/**
 * Whether an HTTP failure is the provider's own, so the next one may be asked: a bad or unpermitted
 * key (401, 403), no credits (402, or a 400 that says the credit balance is too low), a missing
 * model (404, or a 400 whose code says so), a timeout or rate limit (408, 429), its server down or
 * overloaded (5xx, 529), or an error type that names one of these. Anything else — 400, 413, 422 —
 * is the request's fault and fails identically everywhere.
 */
export function isProvidersOwn(status: number, code?: string, sentence?: string): boolean {
  if ([401, 402, 403, 404, 408, 429].includes(status) || status >= 500) return true;
  if (code !== undefined && OWN_CODES.has(code)) return true;
  return status === 400 && sentence !== undefined && NO_CREDITS.test(sentence);
}

/**
 * Whether a failure is one the site can fix and so the person who asked is shown the provider's
 * sentence: no credits, a bad or unpermitted key, a rate limit, a model not theirs to call. A
 * server down has nothing for them to do, and its words are not passed on.
 */
export function isTheirsToFix(status: number, code?: string, sentence?: string): boolean {
  if ([401, 402, 403, 404, 429].includes(status)) return true;
  if (code !== undefined && OWN_CODES.has(code) && code !== 'api_error' && code !== 'overloaded_error') return true;
  return sentence !== undefined && NO_CREDITS.test(sentence);
}

/** What an error body said. */
export interface FailureBody {
  /** `error.code`, else `error.type`: machine-readable, safe to log. */
  code?: string;
  /** The provider's own sentence, keys taken out, at most `SENTENCE_MAX` characters. Never logged. */
  sentence?: string;
}

/** `text` (an error body) read as OpenAI's, Anthropic's or plain text, with `apiKey` and anything like a key taken out of its sentence. */
export function failureBodyOf(text: string, apiKey: string): FailureBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Plain text (or HTML from a proxy in front): only text reads as a sentence.
    return /^\s*</.test(text) ? {} : sentenceOnly(text, apiKey);
  }
  if (!isRecord(body)) return {};
  const error = body.error;
  if (typeof error === 'string') return sentenceOnly(error, apiKey);
  const inner = isRecord(error) ? error : body;
  const raw = inner.code ?? inner.type;
  const code = typeof raw === 'string' && CODE.test(raw) && raw !== 'error' ? raw : undefined;
  const message = typeof inner.message === 'string' ? inner.message : undefined;
  const sentence = message === undefined ? undefined : redacted(message, apiKey);
  return { ...(code === undefined ? {} : { code }), ...(sentence === undefined ? {} : { sentence }) };
}

function sentenceOnly(text: string, apiKey: string): FailureBody {
  const sentence = redacted(text, apiKey);
  return sentence === undefined ? {} : { sentence };
}

/** `text` on one line, without `apiKey` or anything shaped like a key, cut to `SENTENCE_MAX`; undefined when nothing is left. */
function redacted(text: string, apiKey: string): string | undefined {
  let clean = apiKey === '' ? text : text.split(apiKey).join('[key]');
  clean = clean
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9*_.-]{3,}/g, '[key]')
    // eslint-disable-next-line no-control-regex -- control characters are what is being removed
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return undefined;
  return clean.length > SENTENCE_MAX ? `${clean.slice(0, SENTENCE_MAX - 1)}…` : clean;
}

/** The body of a failed `response`, read no further than `ERROR_BODY_MAX` bytes and then let go. */
export async function failureOfResponse(response: Response, apiKey: string): Promise<FailureBody> {
  if (response.body === null) return {};
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < ERROR_BODY_MAX) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return failureBodyOf(Buffer.concat(parts).toString('utf8'), apiKey);
}
