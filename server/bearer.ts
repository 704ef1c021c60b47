/** The one reader of `Authorization: Bearer <token>`, for grants, Supabase access tokens and MCP tokens alike. */
import type { Context } from 'hono';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of a request's `Authorization: Bearer <token>` (the scheme in any case), or undefined when there is none. */
export function bearerOf(c: Context): string | undefined {
  return BEARER.exec(c.req.header('Authorization') ?? '')?.[1];
}
