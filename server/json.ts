/**
 * Reading a JSON request body a person's page sent: capped in size, parsed, and checked field by
 * field, with a 400 that names the field and says what it accepts. The server keeps serving.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';

/** The largest JSON body any session route reads, in bytes. */
export const BODY_LIMIT_BYTES = 64 * 1024;

export async function readJson(c: Context, limitBytes = BODY_LIMIT_BYTES): Promise<Record<string, unknown>> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > limitBytes) throw new HTTPException(413, { message: `The request is over ${limitBytes / 1024} KiB.` });
  const text = await c.req.text();
  if (new TextEncoder().encode(text).length > limitBytes) {
    throw new HTTPException(413, { message: `The request is over ${limitBytes / 1024} KiB.` });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HTTPException(400, { message: 'The request body is not JSON.' });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HTTPException(400, { message: 'The request body must be a JSON object.' });
  }
  return body as Record<string, unknown>;
}

export function text(body: Record<string, unknown>, field: string, options: { maxChars: number; optional?: false }): string;
export function text(body: Record<string, unknown>, field: string, options: { maxChars: number; optional: true }): string | undefined;
export function text(body: Record<string, unknown>, field: string, options: { maxChars: number; optional?: boolean }): string | undefined {
  const value = body[field];
  if (value === undefined && options.optional === true) return undefined;
  if (typeof value !== 'string') throw new HTTPException(400, { message: `${field} must be a string.` });
  if (value.length > options.maxChars) throw new HTTPException(400, { message: `${field} is over ${options.maxChars} characters.` });
  return value;
}

export function flag(body: Record<string, unknown>, field: string): boolean {
  const value = body[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new HTTPException(400, { message: `${field} must be true or false.` });
  return value;
}
