import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isStrictBase64url, strictBase64url } from '../../server/base64url';
import { looksLikeToken, newToken, TOKEN_PREFIX } from '../../server/mcp/token';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The other spellings a lenient decoder reads as the same bytes: the last character's unused bits set. */
function siblings(text: string): string[] {
  const bytes = Buffer.from(text, 'base64url');
  return ALPHABET.split('').map((c) => text.slice(0, -1) + c).filter((t) => t !== text && Buffer.from(t, 'base64url').equals(bytes));
}

describe('strict base64url', () => {
  it('reads what the encoder writes, at every length', () => {
    for (let length = 0; length <= 40; length++) {
      const bytes = randomBytes(length);
      expect(strictBase64url(bytes.toString('base64url'))?.equals(bytes)).toBe(true);
    }
  });

  it('refuses the spellings a lenient decoder takes for the same bytes', () => {
    const signature = randomBytes(32).toString('base64url');
    // 32 bytes leave 2 bits unused in the last of 43 characters: three other spellings.
    expect(siblings(signature)).toHaveLength(3);
    for (const sibling of siblings(signature)) expect(strictBase64url(sibling)).toBeUndefined();
    const one = randomBytes(1).toString('base64url');
    expect(siblings(one)).toHaveLength(15);
    for (const sibling of siblings(one)) expect(strictBase64url(sibling)).toBeUndefined();
  });

  it('refuses padding, the other alphabet, spaces and a length no encoder makes', () => {
    for (const text of ['QQ==', 'a+b/', 'QUJD ', ' QUJD', 'Q', 'QUJDR', 'QU\nJD']) expect(strictBase64url(text), JSON.stringify(text)).toBeUndefined();
  });

  it('checks the byte length it is asked for', () => {
    const text = randomBytes(32).toString('base64url');
    expect(isStrictBase64url(text, 32)).toBe(true);
    expect(isStrictBase64url(text, 31)).toBe(false);
  });
});

describe('an MCP token has one spelling', () => {
  it('takes a token as made and refuses its other spellings', () => {
    const { token } = newToken();
    expect(looksLikeToken(token)).toBe(true);
    const body = token.slice(TOKEN_PREFIX.length);
    expect(siblings(body)).toHaveLength(3);
    for (const sibling of siblings(body)) expect(looksLikeToken(TOKEN_PREFIX + sibling)).toBe(false);
    expect(looksLikeToken(`${TOKEN_PREFIX}${body}x`)).toBe(false);
    expect(looksLikeToken(`confab_mcq_${body}`)).toBe(false);
  });
});
