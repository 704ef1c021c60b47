// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import WhatItCost from '../../../src/ui/people/WhatItCost.vue';
import { NOW_MS, fakePeoplePort } from './fakePeoplePort';

const usd = (amount: number, maximumFractionDigits: number) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits }).format(amount);

describe('What it has cost', () => {
  it('shows answers and spend today and this month per bot, in the person’s currency format', async () => {
    const { port } = fakePeoplePort({
      usage: { bots: [{ bot: 'demo', name: 'Sage', today: { answers: 1, spent: 0.0123 }, thisMonth: { answers: 42, spent: 1.5 }, windows: [] }] },
    });
    const wrapper = mount(WhatItCost, { props: { port } });
    await flushPromises();
    const bot = wrapper.get('[data-testid="cost-bot"]');
    expect(bot.get('h4').text()).toBe('Sage');
    expect(bot.get('[data-testid="cost-today"]').text()).toBe(`1 answer · ${usd(0.0123, 4)}`);
    expect(bot.get('[data-testid="cost-month"]').text()).toBe(`42 answers · ${usd(1.5, 2)}`);
  });

  it('shows each window used against its limit, and when a full one frees up', async () => {
    const { port } = fakePeoplePort({
      usage: {
        bots: [
          {
            bot: 'demo',
            name: 'Sage',
            today: { answers: 20, spent: 0.2 },
            thisMonth: { answers: 20, spent: 0.2 },
            windows: [
              { window: 'perHour', answers: 20, answersLimit: 20, spent: 0.2, spendLimit: null, freesAt: NOW_MS + 10 * 60_000 },
              { window: 'perDay', answers: 20, answersLimit: null, spent: 0.2, spendLimit: 2, freesAt: null },
            ],
          },
        ],
      },
    });
    const wrapper = mount(WhatItCost, { props: { port } });
    await flushPromises();
    const windows = wrapper.findAll('[data-testid="cost-window"]');
    expect(windows[0]?.text()).toMatch(/^Last hour · 20 of 20 answers · room again at \d/);
    expect(windows[0]?.classes()).toContain('full');
    expect(windows[1]?.text()).toBe(`Last day · ${usd(0.2, 4)} of ${usd(2, 2)} · room left`);
  });

  it('says there is nothing yet before the person has talked', async () => {
    const wrapper = mount(WhatItCost, { props: { port: fakePeoplePort().port } });
    await flushPromises();
    expect(wrapper.text()).toContain('Nothing yet: what your answers cost shows here once you have talked.');
  });
});
