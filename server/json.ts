/**
 * Reading a JSON request body a person's page sent: parsed, and checked field by field, with a 400
 * that names the field and says what it accepts, in the words of the request. The server keeps
 * serving. Its size was kept by the app's one body door before any route ran (server/bodyCap.ts; a
 * route that takes more than `BODY_CAP_BYTES` declares it with `bodyCap`), so the body read here is
 * whole and within its cap.
 */
import type { Context } from 'hono';
import { refusal } from './words/requestWords';

export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw refusal(c, 400, 'requests.not-json');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refusal(c, 400, 'requests.not-object');
  return body as Record<string, unknown>;
}

export function text(c: Context, body: Record<string, unknown>, field: string, options: { maxChars: number; optional?: false }): string;
export function text(c: Context, body: Record<string, unknown>, field: string, options: { maxChars: number; optional: true }): string | undefined;
export function text(c: Context, body: Record<string, unknown>, field: string, options: { maxChars: number; optional?: boolean }): string | undefined {
  const value = body[field];
  if (value === undefined && options.optional === true) return undefined;
  if (typeof value !== 'string') throw refusal(c, 400, 'requests.not-text', { field });
  if (value.length > options.maxChars) throw refusal(c, 400, 'requests.text-too-long', { field, most: String(options.maxChars) });
  return value;
}

export function flag(c: Context, body: Record<string, unknown>, field: string): boolean {
  const value = body[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw refusal(c, 400, 'requests.not-flag', { field });
  return value;
}
