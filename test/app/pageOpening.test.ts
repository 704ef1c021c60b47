import { describe, expect, it } from 'vitest';
import { openBot } from '../../src/app/page/pageOpening';
import { createPageStore, openingState } from '../../src/app/page/pageStore';
import { HttpError } from '../../src/platform/http';

/** A config fetch that never answers: the start's refusal decides first. */
const never = (() => new Promise<Response>(() => undefined)) as typeof fetch;

describe('opening a bot', () => {
  it('stands on the server’s one sentence for a bot that is not for this person', async () => {
    const said = 'Sage is for the people who keep Confab on their devices.';
    const store = createPageStore(openingState({ toldAboutListening: false, audioReady: false }));
    const refused = new HttpError(`Confab’s server would not start the conversation: ${said}`, { failure: 'refused', status: 403, said });
    await expect(openBot('demo', { start: () => Promise.reject(refused) }, store, never)).resolves.toBeNull();
    expect(store.state()).toMatchObject({ phase: 'refused', reason: said });
  });

  it('says a refusal without a sentence as the page words it', async () => {
    const store = createPageStore(openingState({ toldAboutListening: false, audioReady: false }));
    const refused = new HttpError('Confab’s server would not start the conversation: it answered 400', { failure: 'refused', status: 400 });
    await openBot('demo', { start: () => Promise.reject(refused) }, store, never);
    expect(store.state()).toMatchObject({ phase: 'failed', reason: 'Confab’s server would not start the conversation: it answered 400' });
  });
});
