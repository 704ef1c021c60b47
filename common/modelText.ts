/**
 * Text written for a program rather than a person, marked so as it is written: what a model reads
 * (a tool's result, a prompt, a verb's contract) and turns into its own words in the person's
 * language, and what an MCP client reads of the protocol (a JSON-RPC error). Neither is said to a
 * person as it is, so neither comes from the words files; a sentence a person hears does
 * (`words/<lang>.md`), and the sentence scanner (`test/words/sentences.test.ts`) tells them apart by
 * these two calls.
 */

declare const modelText: unique symbol;
declare const mcpClientText: unique symbol;

/** Text only a model reads. */
export type ModelText = string & { readonly [modelText]: true };
/** Text only an MCP client reads: the protocol's own errors, in the protocol's English. */
export type McpClientText = string & { readonly [mcpClientText]: true };

/** Marks `text` as read by a model, which says it again in its own words, in the person's language. */
export function forModel(text: string): ModelText {
  return text as ModelText;
}

/** Marks `text` as read by an MCP client: a refusal of the protocol, not a sentence for a person. */
export function forMcpClient(text: string): McpClientText {
  return text as McpClientText;
}
