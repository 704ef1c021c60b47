/**
 * The words files' format and the one way to say a word, shared by the server (which reads the
 * files from disk and lays the site's over them) and the page (which bundles the shipped files and
 * takes the site's from the server). What words there are is each side's catalogue: the server's in
 * `server/words/words.ts`, the page's in `pageWords.ts`.
 *
 * A words file is markdown a site owner can edit: one `## <section>` heading per kind, and under it
 * `- <key>: <text>` items, one a line. `{name}` in a text is filled in when it is said.
 */
/** The sections of words and the keys under each, in the order the files list them. */
export type Catalogue = Readonly<Record<string, readonly string[]>>;
/** One word's full name in `C`, `<section>.<key>` (`endings.out-of-time`). */
export type KeyOf<C extends Catalogue> = {
    [S in keyof C & string]: `${S}.${C[S][number]}`;
}[keyof C & string];
/** Every full name in `catalogue`, in its order. */
export declare function keysOf<C extends Catalogue>(catalogue: C): readonly KeyOf<C>[];
/** A words file (or a bot's `words:`) that cannot be used: names the file and the key. */
export declare class WordsFileError extends Error {
    /** The file as it was read (a words file, or the bot file whose `words:` is at fault). */
    readonly file: string;
    /** The key at fault (`endings.out-of-time`), or `section`, `line`, `folder`. */
    readonly key: string;
    readonly name = "WordsFileError";
    constructor(
    /** The file as it was read (a words file, or the bot file whose `words:` is at fault). */
    file: string, 
    /** The key at fault (`endings.out-of-time`), or `section`, `line`, `folder`. */
    key: string, detail: string, options?: ErrorOptions);
}
/** A `{name}` in a text. */
export declare const PLACEHOLDER: RegExp;
/** `text` with each `{name}` filled from `fill`; a placeholder nobody filled is dropped rather than said as braces. */
export declare function filledIn(text: string, fill: Readonly<Record<string, string>>): string;
/** `over` laid on `base`: a key `over` has wins. */
export declare function layered<K extends string>(base: Readonly<Record<K, string>>, ...over: readonly (Partial<Record<K, string>> | undefined)[]): Readonly<Record<K, string>>;
/**
 * The words of `catalogue` in one file's text. Refuses, naming the file and the key, an unknown
 * key, a key given twice, and a line under a section that is not an item; prose before the first
 * heading (a title, a note for whoever edits it) is passed over. A section the catalogue lacks is
 * refused too, unless `otherSections` is `skip`: then it is someone else's, read by them (the page
 * reads its own sections of a file the server checks whole). Missing keys are the caller's to judge.
 */
export declare function parseWords<C extends Catalogue>(catalogue: C, file: string, text: string, otherSections?: 'refuse' | 'skip'): Partial<Record<KeyOf<C>, string>>;
