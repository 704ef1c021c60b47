/**
 * Who the page is talking for. In local mode the person cookie is enough and nothing is asked; in
 * Supabase mode the page signs in with supabase-js, and its own API calls carry the access token
 * (the conversation's grant, not the token, goes to the chat door and the speak proxy).
 */
import type { PageConfig } from '../../common/voice/api';
import { fetchPageConfig } from '../platform/apiClient';
import { AuthError, createAuth, withAuth } from '../platform/auth';
import type { Auth, SignInOffer } from '../platform/auth';
import { watchingSignedOut } from '../platform/signedOut';

export type { SignInOffer } from '../platform/auth';

export interface Session {
  config: PageConfig;
  /** The fetch for the page's own API: the token added in Supabase mode, and a sign-out elsewhere noticed. */
  fetch: typeof fetch;
  /** Null in local mode: there is nothing to sign in to. */
  signIn: SignIn | null;
}

/** Supabase mode's ways in, for the page's sign-in form. */
export interface SignIn {
  /** Whether a session is already held (a reload keeps it). */
  signedIn(): Promise<boolean>;
  offers(): Promise<SignInOffer>;
  withPassword(email: string, password: string): Promise<void>;
  /** Makes an account; resolves `confirm-email` when the project wants the address confirmed first. */
  createAccount(email: string, password: string): Promise<'signed-in' | 'confirm-email'>;
  asGuest(): Promise<void>;
  signOut(): Promise<void>;
}

/** The sentence to show for a failed sign-in. */
export function signInProblem(error: unknown): string {
  return error instanceof AuthError || error instanceof Error ? error.message : String(error);
}

/** Reads the server's settings and makes the session they call for. */
export async function openSession(): Promise<Session> {
  const config = await fetchPageConfig();
  const auth: Auth = createAuth(config.auth);
  // A device removed from the person's Devices elsewhere is told so at its next call (people.ts).
  const fetcher = watchingSignedOut(withAuth((input, init) => fetch(input, init), auth));
  if (auth.kind === 'local') return { config, fetch: fetcher, signIn: null };
  return {
    config,
    fetch: fetcher,
    signIn: {
      signedIn: async () => (await auth.accessToken()) !== null,
      offers: () => auth.offers(),
      async withPassword(email, password) {
        await auth.signInWithPassword(email, password);
      },
      async createAccount(email, password) {
        return (await auth.createAccount(email, password)).kind;
      },
      async asGuest() {
        await auth.signInAsGuest();
      },
      signOut: () => auth.signOut(),
    },
  };
}
