/** What an error says to a person: its message, or the thing itself as text. */
export function sentenceOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
