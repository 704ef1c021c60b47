// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import ConfirmAction from '../../../src/ui/voice/ConfirmAction.vue';

const QUESTION = 'Clear your shopping list? Say yes or no.';

describe('the question waiting for a yes or no', () => {
  it('shows the question, labels the group with it, and names its buttons for what they do', () => {
    const wrapper = mount(ConfirmAction, { props: { question: QUESTION } });
    const group = wrapper.get('[data-testid="confirm"]');
    expect(group.attributes('role')).toBe('group');
    const labelledBy = group.attributes('aria-labelledby') ?? '';
    expect(wrapper.get(`[id="${labelledBy}"]`).text()).toBe(QUESTION);
    expect(wrapper.get('[data-testid="confirm-yes"]').attributes('aria-label')).toBe('Yes, do it');
    expect(wrapper.get('[data-testid="confirm-no"]').attributes('aria-label')).toBe('No, leave it');
  });

  it('says yes or no when pressed, and nothing else', async () => {
    const wrapper = mount(ConfirmAction, { props: { question: QUESTION } });
    await wrapper.get('[data-testid="confirm-yes"]').trigger('click');
    await wrapper.get('[data-testid="confirm-no"]').trigger('click');
    expect(Object.keys(wrapper.emitted())).toEqual(expect.arrayContaining(['yes', 'no']));
    expect(wrapper.emitted('yes')).toHaveLength(1);
    expect(wrapper.emitted('no')).toHaveLength(1);
  });
});
