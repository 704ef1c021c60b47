// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { openingState } from '../../../src/app/page/pageStore';
import type { ConversationView, VoicePage, VoicePageState } from '../../../src/app/voicePage';
import type { PublicBot } from '../../../common/bot';
import { defaultSettings } from '../../../src/core/settings';

/** Resolves the voice page the view is opening, when the test says. */
const opening = vi.hoisted(() => ({
  resolve: (_page: unknown): void => {
    throw new Error('No voice page is being opened.');
  },
}));

vi.mock('../../../src/app/session', () => ({
  openSession: () => Promise.resolve({ signIn: null, fetch: globalThis.fetch }),
}));
vi.mock('../../../src/app/voicePage', () => ({
  canListen: () => true,
  openVoicePage: () =>
    new Promise((resolve) => {
      opening.resolve = resolve;
    }),
}));

vi.mock('../../../src/app/people', () => ({
  onSignedOut: () => () => undefined,
  wasSignedOut: () => false,
  peoplePort: () => ({ me: () => Promise.resolve({ kind: 'cookie', owner: false, name: null }), passkeysHere: () => true }),
}));

const { default: VoicePageView } = await import('../../../src/ui/voice/VoicePage.vue');

const bot: PublicBot = {
  slug: 'demo',
  name: 'Sage',
  voice: { by: 'browser', voices: [], visual: 'halo', language: 'en', gapMs: 120, steps: 8, opening: 8, words: 12 } as unknown as PublicBot['voice'],
  memory: 'none',
  languages: ['en'],
};

const ONLY_WRITTEN = 'This device’s voice could not say part of the answer, so that part is only written; reload the page if it keeps happening.';
const COULD_NOT_START = 'The voice could not be started: its files could not be downloaded. Check the connection.';

function view(change: Partial<ConversationView> = {}): ConversationView {
  return { phase: 'listening', liveLine: '', lines: [], typing: 'muted', pushToTalk: false, talkHeld: false, waiting: false, speech: true, listening: false, problem: null, pendingAction: null, ...change };
}

/** Where the voice is (presence): on this page. */
const activeHere = { activeAt: 'here' } as const;

/** The page ready over its opening state, then `change`. */
function stateWith(change: Partial<VoicePageState>): VoicePageState {
  const ready: Partial<VoicePageState> = {
    phase: 'ready',
    bot,
    settings: defaultSettings(bot, ['F1']),
    voices: ['F1'],
    engine: { kind: 'ready', onDevice: 'wasm' },
    conversation: view(),
  };
  return { ...openingState({ toldAboutListening: false, audioReady: true }), ...ready, ...activeHere, ...change };
}

/** A voice page the test drives: its state is set by hand, and what the view asks of it is counted. */
function fakePage(initial: VoicePageState) {
  let now = initial;
  const listeners = new Set<(state: VoicePageState) => void>();
  const asked = { retryVoice: 0, dispose: 0 };
  const page = {
    state: () => now,
    subscribe(listener: (state: VoicePageState) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    retryVoice: () => {
      asked.retryVoice += 1;
    },
    dispose: () => {
      asked.dispose += 1;
    },
    gesture: () => undefined,
    assistantLevel: () => 0,
    microphoneLevel: () => 0,
    assistantAudible: () => false,
  } as unknown as VoicePage;
  return {
    page,
    asked,
    set(change: Partial<VoicePageState>) {
      now = { ...now, ...change };
      for (const listener of listeners) listener(now);
    },
  };
}

describe('the voice page', () => {
  beforeEach(() => {
    vi.stubGlobal('ResizeObserver', undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows a question waiting for a yes or no once, on its card, and in the transcript once it is answered', async () => {
    const question = 'Clear your shopping list? Say yes or no.';
    const lines = [
      { role: 'user' as const, text: 'Clear my shopping list.', utteranceId: 1 },
      { role: 'assistant' as const, text: question, utteranceId: 1 },
    ];
    const wrapper = mount(VoicePageView, { props: { slug: 'demo' } });
    await flushPromises();
    const fake = fakePage(stateWith({ conversation: view({ phase: 'confirming', lines, pendingAction: { question, expiresAtMs: 0 } }) }));
    opening.resolve(fake.page);
    await flushPromises();
    const times = () => wrapper.text().split(question).length - 1;
    expect(wrapper.get('[data-testid="confirm"]').text()).toContain(question);
    expect(times()).toBe(1);
    fake.set({ conversation: view({ lines }) });
    await flushPromises();
    expect(wrapper.find('[data-testid="confirm"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="transcript"]').text()).toContain(question);
    expect(times()).toBe(1);
    wrapper.unmount();
  });

  it('shows only the sentence of a bot that is not for this person, and offers a cookie person a passkey', async () => {
    const said = 'Sage is for the people who keep Confab on their devices.';
    const wrapper = mount(VoicePageView, { props: { slug: 'demo' } });
    await flushPromises();
    opening.resolve(fakePage({ ...openingState({ toldAboutListening: false, audioReady: false }), phase: 'refused', reason: said }).page);
    await flushPromises();
    expect(wrapper.get('[data-testid="page-problem"]').text()).toBe(said);
    expect(wrapper.find('[data-testid="orb"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="transcript"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="keep-passkey"]').exists()).toBe(true);
    expect(wrapper.get('a[href="/"]').text()).toBe('Go to the start');
    wrapper.unmount();
  });

  it('closes a voice page that finishes opening after the view has gone', async () => {
    const wrapper = mount(VoicePageView, { props: { slug: 'demo' } });
    await flushPromises();
    wrapper.unmount();
    const late = fakePage(stateWith({}));
    opening.resolve(late.page);
    await flushPromises();
    expect(late.asked.dispose).toBe(1);
  });

  it('says a voice that could not start once, with Try again, however many parts of answers were only written because of it', async () => {
    const wrapper = mount(VoicePageView, { props: { slug: 'demo' } });
    await flushPromises();
    const fake = fakePage(stateWith({ engine: { kind: 'failed', reason: COULD_NOT_START }, conversation: view({ problem: { kind: 'speaker', reason: ONLY_WRITTEN } }) }));
    opening.resolve(fake.page);
    await flushPromises();

    const warnings = () => wrapper.findAll('[data-testid="warning"]');
    expect(warnings()).toHaveLength(1);
    expect(wrapper.get('[data-testid="voice-problem"]').attributes('title')).toBe(COULD_NOT_START);
    expect(wrapper.get('[data-testid="voice-problem"] [aria-hidden="true"]').text()).toBe('The voice could not start.');
    // The same fault again is still one line.
    fake.set({ conversation: view({ problem: { kind: 'speaker', reason: ONLY_WRITTEN } }) });
    await flushPromises();
    expect(warnings()).toHaveLength(1);

    await wrapper.get('[data-testid="retry-voice"]').trigger('click');
    expect(fake.asked.retryVoice).toBe(1);
    // Loading again: the warning goes, and what was only written before is not said afresh.
    fake.set({ engine: { kind: 'starting' } });
    await flushPromises();
    expect(warnings()).toHaveLength(0);
    wrapper.unmount();
  });

  it('puts a warning away when dismissed, and keeps it away when the same one comes again; another still shows', async () => {
    const wrapper = mount(VoicePageView, { props: { slug: 'demo' } });
    await flushPromises();
    const fake = fakePage(stateWith({ conversation: view({ problem: { kind: 'speaker', reason: ONLY_WRITTEN } }) }));
    opening.resolve(fake.page);
    await flushPromises();
    expect(wrapper.get('[data-testid="problem"]').text()).toBe(ONLY_WRITTEN);
    await wrapper.get('[data-testid="dismiss-warning"]').trigger('click');
    expect(wrapper.findAll('[data-testid="warning"]')).toHaveLength(0);
    fake.set({ conversation: view({ problem: { kind: 'speaker', reason: ONLY_WRITTEN } }) });
    await flushPromises();
    expect(wrapper.findAll('[data-testid="warning"]')).toHaveLength(0);
    const stopped = 'The speech recogniser failed (network), so this conversation is typed for now.';
    fake.set({ conversation: view({ problem: { kind: 'recogniser', reason: stopped } }) });
    await flushPromises();
    expect(wrapper.get('[data-testid="problem"]').text()).toBe(stopped);
    wrapper.unmount();
  });
});
