/**
 * A line longer than the server keeps (`LINE_MAX_CHARS`) is kept as several, in order, rather than
 * refused and lost. The cut falls after the last whitespace that leaves a part at most `maxChars`
 * long, so a word is not broken where it can be helped, and never between the two halves of a
 * surrogate pair, so every part is text on its own.
 */
import { LINE_MAX_CHARS } from '../../../common/conversation/events';
import { checkOption } from '../../../common/options';

/** `text` in parts of at most `maxChars` UTF-16 code units each, which join back to `text`; one part when it fits. */
export function lineParts(text: string, maxChars: number = LINE_MAX_CHARS): string[] {
  // A part of one code unit could not keep a surrogate pair whole.
  checkOption('lineParts.maxChars', maxChars, { min: 2, whole: true });
  const parts: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const space = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'), window.lastIndexOf('\t'));
    let cut = space > 0 ? space + 1 : maxChars;
    // A high surrogate last would leave its pair's low half to start the next part.
    if (cut === maxChars && isHighSurrogate(rest.charCodeAt(cut - 1))) cut -= 1;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  parts.push(rest);
  return parts;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
