import type { ModelVersion } from './text';
/** Every model version Confab can speak with, the default first. */
export declare const MODEL_VERSIONS: readonly ModelVersion[];
/** The Hugging Face hub, the default origin of the model's files. */
export declare const HUB_ORIGIN = "https://huggingface.co";
/** A file whose real size and digest are recorded: always verified, refused on mismatch. */
export interface PinnedFile {
    /** Path inside the repo, `/`-separated, e.g. `onnx/vocoder.onnx`. */
    readonly path: string;
    /** Bytes. */
    readonly size: number;
    /** SHA-256 of the whole file, 64 lower-case hex digits. */
    readonly sha256: string;
}
/** A file nobody has measured yet: downloadable, but only ever reported as unverified. */
export interface UnpinnedFile {
    readonly path: string;
    readonly size: null;
    readonly sha256: null;
}
export type ModelFile = PinnedFile | UnpinnedFile;
/** One model version: its upstream repo, the revision to fetch, and every file it needs. */
export interface ModelSource {
    readonly version: ModelVersion;
    /** Hugging Face repo, `owner/name`. */
    readonly repo: string;
    /** A 40-hex commit id (pinned) or a branch or tag such as `main` (moving). */
    readonly revision: string;
    readonly files: readonly ModelFile[];
}
export interface Manifest {
    /** The `$comment` string, kept so a rewrite (`--pin`) does not drop it. */
    readonly comment?: string;
    /** The version used when nothing else is chosen. */
    readonly default: ModelVersion;
    readonly versions: Readonly<Record<ModelVersion, ModelSource>>;
}
/**
 * Where the model's files are downloaded from:
 * - `{ kind: 'hub' }`: the manifest's Hugging Face repo at its revision,
 *   `<origin>/<repo>/resolve/<revision>/<path>`. `origin` defaults to `HUB_ORIGIN`; another origin
 *   must lay files out the same way (an HF-compatible mirror, or a test server).
 * - `{ kind: 'mirror', url }`: a self-hosted copy laid out as `npm run models` writes it,
 *   `<url>/<version>/<path>` (no revision in the URL: the mirror holds one copy per version, and
 *   the pins say which bytes it must be). `url` is absolute http(s), or a path on the page's own
 *   origin such as `/models` (Confab's server); it has no trailing slash.
 */
export type ModelBase = {
    readonly kind: 'hub';
    readonly origin?: string;
} | {
    readonly kind: 'mirror';
    readonly url: string;
};
/** `models/manifest.json` is malformed; the message names the file and the field. */
export declare class ModelManifestError extends Error {
    readonly name = "ModelManifestError";
}
/** A model base setting (`CONFAB_MODEL_BASE`, `--base`) a person must fix. */
export declare class ModelBaseError extends Error {
    readonly name = "ModelBaseError";
}
export declare function isPinned(file: ModelFile): file is PinnedFile;
/** True for a 40-hex-digit commit id: the only revision whose bytes cannot move. */
export declare function isRevisionPinned(revision: string): boolean;
/** The files every version must list: the four graphs, the config, the character table, the ten voices. */
export declare const REQUIRED_PATHS: readonly string[];
/**
 * Validates a parsed `models/manifest.json`. Throws `ModelManifestError` naming the file (`source`),
 * the field and what it must be. Unknown keys are refused so a misspelt `sha265` cannot silently
 * leave a file unpinned.
 */
export declare function parseManifest(json: unknown, source?: string): Manifest;
/** True for a version Confab knows. */
export declare function isModelVersion(value: unknown): value is ModelVersion;
/**
 * Writes a manifest back in the format `parseManifest` reads, one file per line so a re-pin shows
 * as a readable diff. Ends with a newline.
 */
export declare function serializeManifest(manifest: Manifest): string;
/**
 * Reads a model base setting: empty or absent is the hub; otherwise an absolute http(s) URL or a
 * path on the page's own origin (`/models`). Trailing slashes are dropped. `allowRelative: false`
 * (the command line, which has no page origin) refuses paths.
 */
export declare function parseModelBase(setting: string | undefined, options?: {
    name?: string;
    allowRelative?: boolean;
}): ModelBase;
/** The URL of one file of one version from `base`; see `ModelBase` for the two layouts. */
export declare function fileUrl(base: ModelBase, source: ModelSource, file: Pick<ModelFile, 'path'>): string;
/** What arrived, measured: bytes and the SHA-256 of all of them. */
export interface Measured {
    readonly size: number;
    readonly sha256: string;
}
/**
 * How a file differs from what was expected. `expected` is null when nothing was known (an
 * unpinned file whose download broke off with no length given); `note` says how it went wrong when
 * the numbers alone do not (the connection broke off; the download ran past the size and was stopped).
 */
export type Mismatch = {
    readonly field: 'size';
    readonly expected: number | null;
    readonly got: number;
    readonly note?: string;
} | {
    readonly field: 'sha256';
    readonly expected: string;
    readonly got: string;
};
/** Compares a measured file with its pin: size first (cheap, and names truncation), then digest. */
export declare function compareFile(file: PinnedFile, got: Measured): Mismatch | null;
/** Lower-case hex of a digest, as the manifest writes it. */
export declare function toHex(digest: ArrayBuffer | Uint8Array): string;
export declare function describeMismatch(mismatch: Mismatch): string;
/**
 * A model file that came out wrong (size or digest) even after a fresh download: it is not used and
 * not kept. The message names the file, the URL, expected against got, and what to do (`advice`).
 */
export declare class ModelFileError extends Error {
    readonly path: string;
    readonly url: string;
    readonly mismatch: Mismatch;
    readonly name = "ModelFileError";
    constructor(path: string, url: string, mismatch: Mismatch, advice: string, options?: ErrorOptions);
}
/**
 * A download that did not happen: the host could not be reached (`status` null) or answered with an
 * HTTP error (`status` its code). The message names the host or URL and the status, and what to do.
 */
export declare class ModelDownloadError extends Error {
    readonly url: string;
    readonly status: number | null;
    readonly name = "ModelDownloadError";
    constructor(url: string, status: number | null, message: string, options?: ErrorOptions);
}
/** The host (and port) of an absolute URL, or the URL itself when it has none. */
export declare function hostOf(url: string): string;
/** The messages down an error's `cause` chain, e.g. `fetch failed (getaddrinfo ENOTFOUND huggingface.co)`. */
export declare function describeCause(error: unknown): string;
/** `Could not reach <host>: <cause>. <advice>` — the host could not be reached at all. */
export declare function unreachableError(url: string, cause: unknown, advice: string): ModelDownloadError;
/** `Could not download <url>: HTTP <status> <text>. <advice>` — the host answered with an error. */
export declare function httpError(url: string, status: number, statusText: string): ModelDownloadError;
