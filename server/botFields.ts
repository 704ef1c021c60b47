/**
 * How a bot file's fields are read (`bots.ts`, `audience.ts`): each reader takes the file and the
 * field it reads, answers the value or undefined when the field is left out, and throws a
 * `BotFileError` naming the file and the field and saying what it accepts.
 */

/** A bot file the server cannot start with; names the file and the field, says what it accepts. */
export class BotFileError extends Error {
  override readonly name = 'BotFileError';
  constructor(
    /** The file's path as it was read. */
    readonly file: string,
    /** The field at fault, dotted (`voice.visual`), or `front matter`, `slug`, `prompt`. */
    readonly field: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${file}: ${field} ${detail}`, options);
  }
}

/** A mapping of a bot file, its keys checked. */
type Fields = Record<string, unknown>;

export function mapping(file: string, field: string, value: unknown, keys: readonly string[], prefix: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BotFileError(file, field, `is ${describe(value)}; it must be a mapping of ${keys.join(', ')}.`);
  }
  const unknown = Object.keys(value).find((key) => !keys.includes(key));
  if (unknown !== undefined) {
    throw new BotFileError(file, `${prefix}${unknown}`, `is not a field ${prefix === '' ? 'of a bot file' : `of ${prefix.slice(0, -1)}`}; the fields are ${keys.join(', ')}.`);
  }
  return value as Fields;
}

export function missing(file: string, field: string, what: string): never {
  throw new BotFileError(file, field, `is missing; it must be ${what}.`);
}

export function text1(file: string, field: string, value: unknown, maxChars: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.trim().length > maxChars) {
    throw new BotFileError(file, field, `is ${describe(value)}; it must be a string of 1 to ${maxChars} characters.`);
  }
  return value.trim();
}

export function oneOf<T extends string>(file: string, field: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new BotFileError(file, field, `is ${describe(value)}; it must be one of ${allowed.join(', ')}.`);
  }
  return value as T;
}

export function number(file: string, field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new BotFileError(file, field, `is ${describe(value)}; it must be a number.`);
  }
  return value;
}

export function ranged(file: string, field: string, value: unknown, min: number, max: number, whole: boolean): number | undefined {
  const given = number(file, field, value);
  if (given !== undefined && (given < min || given > max || (whole && !Number.isInteger(given)))) {
    throw new BotFileError(file, field, `is ${given}; it must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}.`);
  }
  return given;
}

/** A non-empty list of distinct, non-empty strings. */
export function list(file: string, field: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
    throw new BotFileError(file, field, `is ${describe(value)}; it must be a list of one or more names, e.g. [a, b].`);
  }
  const items = (value as string[]).map((item) => item.trim());
  const twice = items.find((item, index) => items.indexOf(item) !== index);
  if (twice !== undefined) throw new BotFileError(file, field, `lists "${twice}" twice.`);
  return items;
}

export function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const shown = JSON.stringify(value);
  return shown.length > 60 ? `${shown.slice(0, 57)}…` : shown;
}
