/** The one error an app file's reading throws, kept apart so the modules that read its parts need not import the reader. */
/** An app file that cannot be used: names the file and the field at fault. */
export class AppFileError extends Error {
  override readonly name = 'AppFileError';

  constructor(
    readonly file: string,
    /** The field at fault, dotted (`mcp.url`, `operations`), or `front matter`, `description`. */
    readonly field: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${appFilePath(file)}: ${field} ${detail}`, options);
  }
}

/**
 * Where an app file is, as a sentence names it: a shipped one by its name under `server/apps/`,
 * one from the site's own folder as its reader was given it (`CONFAB_APPS_DIR/<app>.md`).
 */
export function appFilePath(file: string): string {
  return file.includes('/') ? file : `server/apps/${file}`;
}
