/**
 * The one reading of base64url for anything signed (grants, person cookies, MCP tokens): a string
 * is accepted only in the one spelling the encoder makes of its bytes. base64url's last character
 * carries bits that the bytes do not need (2 or 4 of them); a lenient decoder ignores them, so four
 * spellings of one signature would all verify. Here a string whose unused bits are not zero, or
 * that has padding or any character outside the alphabet, is no encoding at all.
 */

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** The bytes `text` encodes, or undefined when `text` is not the canonical base64url of any bytes. */
export function strictBase64url(text: string): Buffer | undefined {
  // A length of 1 mod 4 carries 6 bits, less than a byte: no encoder makes it.
  if (!ALPHABET.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** Whether `text` is the canonical base64url of exactly `byteLength` bytes. */
export function isStrictBase64url(text: string, byteLength: number): boolean {
  return strictBase64url(text)?.length === byteLength;
}
