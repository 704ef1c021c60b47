// @vitest-environment happy-dom
/** The views say the page's words in the person's language, and say them again when it changes. */
import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import { nextTick } from 'vue';
import { speakLanguage } from '../../src/app/words';
import ConfirmAction from '../../src/ui/voice/ConfirmAction.vue';

describe('the views’ words', () => {
  it('change with the person’s language while the view stands', async () => {
    const wrapper = mount(ConfirmAction, { props: { question: '¿Borro la lista?' } });
    expect(wrapper.get('[data-testid="confirm-yes"]').text()).toBe('Yes');
    await speakLanguage('es', () => Promise.reject(new TypeError('Failed to fetch')));
    await nextTick();
    expect(wrapper.get('[data-testid="confirm-yes"]').text()).toBe('Sí');
    expect(wrapper.get('[data-testid="confirm-no"]').attributes('aria-label')).toBe('No, déjalo');
  });
});
