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
    super(`server/apps/${file}: ${field} ${detail}`, options);
  }
}
