/**
 * The page's calls to its own server. Each answer is checked for the shape the page relies on, so
 * a mismatched server is a clear error rather than an undefined deep in the page.
 */
import type { PageAuth, PageConfig } from '../../common/voice/api';
import { isModelVersion } from '../../common/voice/manifest';
import { sayWord } from './words';

/** The server could not be reached or answered something the page cannot use. */
class ApiError extends Error {
  override readonly name = 'ApiError';
}

function isPageConfig(value: unknown): value is PageConfig {
  if (typeof value !== 'object' || value === null) return false;
  const model = (value as { model?: unknown }).model;
  if (typeof model !== 'object' || model === null) return false;
  const { version, base } = model as { version?: unknown; base?: unknown };
  if (!isModelVersion(version)) return false;
  if (typeof base !== 'object' || base === null) return false;
  const kind = (base as { kind?: unknown }).kind;
  if (!(kind === 'hub' || (kind === 'mirror' && typeof (base as { url?: unknown }).url === 'string'))) return false;
  const auth = (value as { auth?: unknown }).auth;
  return auth === undefined || isPageAuth(auth);
}

function isPageAuth(value: unknown): value is PageAuth {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, url, anonKey } = value as { kind?: unknown; url?: unknown; anonKey?: unknown };
  return kind === 'local' || (kind === 'supabase' && typeof url === 'string' && url !== '' && typeof anonKey === 'string' && anonKey !== '');
}

export async function fetchPageConfig(fetcher: typeof fetch = fetch): Promise<PageConfig> {
  let response: Response;
  try {
    response = await fetcher('/api/config', { headers: { accept: 'application/json' } });
  } catch (cause) {
    throw new ApiError(sayWord('page-server.no-page-config'), { cause });
  }
  if (!response.ok) throw new ApiError(sayWord('page-server.page-config-refused', { status: response.status }));
  const body: unknown = await response.json();
  if (!isPageConfig(body)) throw new ApiError(sayWord('page-server.page-config-misshapen'));
  return body;
}
