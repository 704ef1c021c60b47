// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import type { Offer } from '../../../common/conversation/choices';
import type { Line } from '../../../common/conversation/events';
import OfferButtons from '../../../src/ui/voice/OfferButtons.vue';
import TranscriptLog from '../../../src/ui/voice/TranscriptLog.vue';

const offer: Offer = { id: 'line-1', question: 'Which copy is it?', items: ['The paperback', 'The hardcover', 'The audiobook'], taken: null };

describe('the choices under an answer', () => {
  it('are a group named by their question, one button per choice with its words', () => {
    const wrapper = mount(OfferButtons, { props: { offer, open: true, problem: null } });
    const group = wrapper.get('[data-testid="choices"]');
    expect(group.attributes('role')).toBe('group');
    expect(group.attributes('aria-label')).toBe('Which copy is it?');
    expect(wrapper.findAll('button').map((button) => button.text())).toEqual(['The paperback', 'The hardcover', 'The audiobook']);
    expect(wrapper.findAll('button').every((button) => button.attributes('disabled') === undefined)).toBe(true);
  });

  it('say which was pressed, by its place', async () => {
    const wrapper = mount(OfferButtons, { props: { offer, open: true, problem: null } });
    await wrapper.findAll('button')[1]?.trigger('click');
    expect(wrapper.emitted('choose')).toEqual([[1]]);
  });

  it('move between the choices with the arrow keys, round the ends', async () => {
    const wrapper = mount(OfferButtons, { props: { offer, open: true, problem: null }, attachTo: document.body });
    const buttons = wrapper.findAll('button');
    await buttons[0]?.trigger('keydown', { key: 'ArrowRight' });
    expect(document.activeElement).toBe(buttons[1]?.element);
    await buttons[0]?.trigger('keydown', { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(buttons[2]?.element);
    await buttons[2]?.trigger('keydown', { key: 'ArrowDown' });
    expect(document.activeElement).toBe(buttons[0]?.element);
    wrapper.unmount();
  });

  it('once spent stay, faded and no longer pressable, with the one taken marked for eyes and ears', () => {
    const wrapper = mount(OfferButtons, { props: { offer: { ...offer, taken: 1 }, open: false, problem: null } });
    expect(wrapper.get('[data-testid="choices"]').classes()).toContain('spent');
    expect(wrapper.findAll('button').every((button) => button.attributes('disabled') !== undefined)).toBe(true);
    const taken = wrapper.findAll('button').filter((button) => button.attributes('data-taken') === 'true');
    expect(taken.map((button) => button.text())).toEqual(['✓ The hardcover (chosen)']);
  });

  it('say why a press did not get through', () => {
    const wrapper = mount(OfferButtons, { props: { offer: { ...offer, taken: 0 }, open: false, problem: 'That choice has gone.' } });
    expect(wrapper.get('[data-testid="choice-problem"]').text()).toBe('That choice has gone.');
    expect(wrapper.get('[data-testid="choice-problem"]').attributes('role')).toBe('status');
  });
});

describe('the transcript’s offers', () => {
  const lines: Line[] = [
    { role: 'user', text: 'Which copy?', utteranceId: 1 },
    { role: 'assistant', text: 'Which copy is it?', utteranceId: 1, offer },
  ];

  it('shows the newest answer’s choices pressable, and passes a press on with its offer', async () => {
    const wrapper = mount(TranscriptLog, { props: { lines, botName: 'Sage' } });
    expect(wrapper.get('[data-testid="choices"]').attributes('data-open')).toBe('true');
    await wrapper.findAll('[data-testid="choice"]')[2]?.trigger('click');
    expect(wrapper.emitted('choose')).toEqual([['line-1', 2]]);
  });

  it('shows an offer the conversation has gone on from as spent, and a press’s problem under its own offer', () => {
    const wrapper = mount(TranscriptLog, {
      props: { lines: [...lines, { role: 'user', text: 'Never mind.', utteranceId: 2 }], botName: 'Sage', choiceProblem: { offer: 'line-1', sentence: 'Gone.' } },
    });
    expect(wrapper.get('[data-testid="choices"]').attributes('data-open')).toBe('false');
    expect(wrapper.get('[data-testid="choice-problem"]').text()).toBe('Gone.');
  });
});
