/**
 * Reading a JSON request body a person's page sent: parsed, and checked field by field, with a 400
 * that names the field and says what it accepts. The server keeps serving. Its size was kept by
 * the app's one body door before any route ran (server/bodyCap.ts; a route that takes more than
 * `BODY_CAP_BYTES` declares it with `bodyCap`), so the body read here is whole and within its cap.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';

export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
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
