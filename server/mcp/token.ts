/**
 * A personal MCP token's value: `confab_mcp_` and 43 characters of base64url (32 random bytes). The
 * prefix lets a secret scanner recognise one that leaked; only its SHA-256 is ever stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isStrictBase64url } from '../base64url';

export const TOKEN_PREFIX = 'confab_mcp_';
const TOKEN_BYTES = 32;

/** A new token and the hash it is kept as. */
export function newToken(): { token: string; hash: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(TOKEN_BYTES).toString('base64url')}`;
  return { token, hash: hashOfToken(token) };
}

/** SHA-256 of the token, lower-case hex: what is stored and looked up. */
export function hashOfToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether a Bearer value could be a token at all (anything else is refused without a query): the
 * prefix, then 32 bytes in their one base64url spelling, so no token has a second spelling.
 */
export function looksLikeToken(value: string): boolean {
  return value.startsWith(TOKEN_PREFIX) && isStrictBase64url(value.slice(TOKEN_PREFIX.length), TOKEN_BYTES);
}
