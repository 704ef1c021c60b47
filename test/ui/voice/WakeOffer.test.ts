// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import type { ShownWake } from '../../../common/wakes';
import { personChanged } from '../../../src/app/personChanged';
import type { WakesPort } from '../../../src/app/wakes';
import WakeOffer from '../../../src/ui/voice/WakeOffer.vue';

const morning: ShownWake = { wake: 'morning', state: 'ask', question: 'Sage can speak first at 8:00 on weekdays — allow?', said: 'Sage speaks first at 8:00 on weekdays.' };

/** Wakes as the server answers a person: none for a bare cookie, the bot's once they keep Confab on their devices. */
function serverPort(): WakesPort & { kept: boolean; asked: number } {
  const port = {
    kept: false,
    asked: 0,
    list: () => {
      port.asked += 1;
      return Promise.resolve(port.kept ? [morning] : []);
    },
    answer: () => Promise.resolve({ ...morning, state: 'allowed' as const }),
  };
  return port;
}

describe('the wakes offered on the page', () => {
  it('are asked for again when the person makes a passkey mid-visit, and offered without a reload', async () => {
    const port = serverPort();
    const wrapper = mount(WakeOffer, { props: { bot: 'sage', language: 'en', mode: 'offer', port } });
    await flushPromises();
    expect(wrapper.find('[data-testid="wakes"]').exists()).toBe(false);
    port.kept = true;
    personChanged();
    await flushPromises();
    expect(port.asked).toBe(2);
    expect(wrapper.get('[data-testid="wakes"]').text()).toContain(morning.question);
    wrapper.unmount();
    personChanged();
    expect(port.asked).toBe(2);
  });
});
