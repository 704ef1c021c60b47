/**
 * Opening the voice page for a view: the session first (Supabase mode may ask the person to sign
 * in), then the voice page itself, whose state the view follows until it unmounts. Call it from a
 * component's setup: it opens on mount and closes on unmount.
 */
import { onBeforeUnmount, onMounted, ref, shallowRef } from 'vue';
import type { Ref, ShallowRef } from 'vue';
import { openSession } from '../../app/session';
import type { Session, SignIn } from '../../app/session';
import { openVoicePage } from '../../app/voicePage';
import type { VoicePage, VoicePageState } from '../../app/voicePage';

export interface OpeningVoicePage {
  /** The page's state; null until it has opened. */
  state: ShallowRef<VoicePageState | null>;
  /** The voice page once open; null before (and its calls are then not made). */
  page: () => VoicePage | null;
  /** Supabase mode's sign-in, while nobody is signed in; null otherwise. */
  signIn: ShallowRef<SignIn | null>;
  /** Why the session could not be opened, for the person; empty while it could. */
  startProblem: Ref<string>;
  /** The session's fetch (it adds the Supabase token to personal routes), for the settings' MCP tokens. */
  sessionFetch: ShallowRef<typeof fetch | undefined>;
  /** Opens the voice page (after signing in). */
  open: () => Promise<void>;
}

/** `slug` is read when the page opens. */
export function useVoicePage(slug: () => string): OpeningVoicePage {
  const state = shallowRef<VoicePageState | null>(null);
  let page: VoicePage | null = null;
  /** Whether the view has gone: a voice page that finishes opening after that is closed at once. */
  let unmounted = false;
  let unsubscribe: (() => void) | null = null;
  const signIn = shallowRef<SignIn | null>(null);
  const startProblem = ref('');
  let session: Session | null = null;
  const sessionFetch = shallowRef<typeof fetch | undefined>(undefined);

  onMounted(async () => {
    try {
      session = await openSession();
      sessionFetch.value = session.fetch;
    } catch (error) {
      startProblem.value = error instanceof Error ? error.message : String(error);
      return;
    }
    if (session.signIn !== null && !(await session.signIn.signedIn())) {
      signIn.value = session.signIn;
      return;
    }
    await open();
  });

  async function open(): Promise<void> {
    signIn.value = null;
    const opened = await openVoicePage(slug(), session === null ? {} : { fetch: session.fetch });
    // Left before it opened (another bot chosen, the tab navigated): nothing may keep listening.
    if (unmounted) {
      opened.dispose();
      return;
    }
    page = opened;
    unsubscribe = page.subscribe((next) => {
      state.value = next;
    });
    state.value = page.state();
    document.title = state.value.bot === null ? 'Confab' : `${state.value.bot.name} · Confab`;
  }

  onBeforeUnmount(() => {
    unmounted = true;
    unsubscribe?.();
    page?.dispose();
  });

  return { state, page: () => page, signIn, startProblem, sessionFetch, open };
}
