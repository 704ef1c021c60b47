/**
 * A personal MCP token's value: `confab_mcp_` and 43 characters of base64url (32 random bytes). The
 * prefix lets a secret scanner recognise one that leaked; only its SHA-256 is ever stored.
 */
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'confab_mcp_';
const TOKEN_SHAPE = /^confab_mcp_[A-Za-z0-9_-]{43}$/;

/** A new token and the hash it is kept as. */
export function newToken(): { token: string; hash: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashOfToken(token) };
}

/** SHA-256 of the token, lower-case hex: what is stored and looked up. */
export function hashOfToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a Bearer value could be a token at all (anything else is refused without a query). */
export function looksLikeToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}
