/**
 * The random values a person's devices hold — a session's secret, a link code, an invitation's token —
 * and the one hash each is kept as: SHA-256, lower-case hex. None is ever stored as it is.
 */
import { createHash, randomBytes } from 'node:crypto';

/** SHA-256 of `value` (UTF-8), lower-case hex. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** 256 random bits, base64url (43 characters): a session's secret, an invitation's token. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The link code's alphabet: digits and capitals with none a person could read as another (no 0 or O,
 * no 1 or I). 32 of them, so each character is 5 bits drawn without bias.
 */
const LINK_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
/** Characters in a link code: 40 bits. */
const LINK_CODE_CHARS = 8;

const LINK_CODE = new RegExp(`^[${LINK_ALPHABET}]{${LINK_CODE_CHARS}}$`);

/** A new link code, its eight characters as they are hashed. */
export function newLinkCode(): string {
  return [...randomBytes(LINK_CODE_CHARS)].map((byte) => LINK_ALPHABET[byte % LINK_ALPHABET.length] ?? '').join('');
}

/** A link code as a person is shown it: `ABCD-EFGH`. */
export function linkCodeShown(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * A link code as a person typed it — any case, with or without the dash or spaces — as it is hashed:
 * its eight characters in capitals; undefined when it cannot be one.
 */
export function linkCodeRead(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  return LINK_CODE.test(code) ? code : undefined;
}
