/**
 * A fresh random id in the shape of a version 4 UUID: local thread ids, conversation keys, line
 * client ids. Not `crypto.randomUUID`, which exists only in a secure context: a page served over
 * plain http (the README's `HOST=0.0.0.0`, opened from a phone on the same network) has no such
 * function, while `crypto.getRandomValues` is there in every context.
 */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  // The version (4) and variant (10xx) bits, as RFC 9562 sets them.
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
