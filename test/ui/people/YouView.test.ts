// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import YouView from '../../../src/ui/people/YouView.vue';
import { PASSKEY_OWNER, fakePeoplePort } from './fakePeoplePort';

const bot = { slug: 'demo', name: 'Sage' };

describe('You, in the drawer', () => {
  it('offers a cookie person to keep Confab on their devices, and what it cost, to take, and to forget', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(YouView, { props: { bot, port } });
    await flushPromises();
    expect(wrapper.get('[data-testid="you"]').attributes('data-kind')).toBe('cookie');
    for (const part of ['keep-on-devices', 'cost', 'take-it', 'forget-me']) expect(wrapper.find(`[data-testid="${part}"]`).exists(), part).toBe(true);
    expect(wrapper.find('[data-testid="devices"]').exists()).toBe(false);
  });

  it('shows Devices once a passkey is made here, saying so', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(YouView, { props: { bot, port } });
    await flushPromises();
    await wrapper.get('[data-testid="keep-passkey"]').trigger('click');
    await flushPromises();
    expect(wrapper.get('[data-testid="kept"]').text()).toContain('every device you sign in on with your passkey is you now');
    expect(wrapper.find('[data-testid="keep-on-devices"]').exists()).toBe(false);
    expect(wrapper.findAll('[data-testid="device"]')).toHaveLength(2);
  });

  it('tells the owner they own this Confab and lets them name somebody by a link', async () => {
    const { port } = fakePeoplePort({ me: PASSKEY_OWNER });
    const wrapper = mount(YouView, { props: { bot, port } });
    await flushPromises();
    expect(wrapper.get('[data-testid="owner"]').text()).toBe('You own this Confab: you were the first to keep it on your devices.');
    await wrapper.get('[data-testid="name-given"]').setValue('Ana');
    await wrapper.get('[data-testid="name-somebody"] form').trigger('submit');
    await flushPromises();
    expect(port.nameInvite).toHaveBeenCalledWith('Ana');
    expect(wrapper.get('[data-testid="name-link"]').text()).toBe('http://localhost:8787/invite#tok');
    await wrapper.get('[data-testid="name-somebody"]').findAll('button').find((b) => b.text() === 'Copy the link')?.trigger('click');
    await flushPromises();
    expect(port.copy).toHaveBeenCalledWith('http://localhost:8787/invite#tok');
    expect(wrapper.get('[data-testid="name-somebody"] [role="status"]').text()).toBe('The link is copied.');
  });

  it('offers no name links to a passkey person who is not the owner', async () => {
    const { port } = fakePeoplePort({ me: { kind: 'passkey', owner: false, name: 'ana' } });
    const wrapper = mount(YouView, { props: { bot, port } });
    await flushPromises();
    expect(wrapper.find('[data-testid="devices"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="owner"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="name-somebody"]').exists()).toBe(false);
  });

  it('offers a Supabase person neither passkeys nor devices', async () => {
    const { port } = fakePeoplePort({ me: { kind: 'supabase', owner: false, name: null } });
    const wrapper = mount(YouView, { props: { bot, port } });
    await flushPromises();
    expect(wrapper.find('[data-testid="keep-on-devices"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="devices"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="forget-me"]').exists()).toBe(true);
  });
});
