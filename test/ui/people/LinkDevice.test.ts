// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import LinkDevice from '../../../src/ui/people/LinkDevice.vue';
import { fakePeoplePort } from './fakePeoplePort';

describe('Link a device', () => {
  it('shows the code big, its link as a QR image, and the time it has left as the clock moves', async () => {
    const { port, tick } = fakePeoplePort();
    const wrapper = mount(LinkDevice, { props: { port } });
    await wrapper.get('[data-testid="make-link-code"]').trigger('click');
    await flushPromises();
    expect(wrapper.get('[data-testid="link-code"]').text()).toBe('ABCD-EFGH');
    expect(wrapper.text()).toContain('open http://localhost:8787/link and enter this code');
    const qr = wrapper.get('[data-testid="link-qr"]');
    expect(qr.element.tagName).toBe('IMG');
    expect(qr.attributes('src')).toBe(port.qrImage('http://localhost:8787/link#ABCD-EFGH'));
    expect(wrapper.get('[data-testid="link-time-left"]').text()).toBe('Works once, for 5:00 more.');
    tick(73_000);
    await flushPromises();
    expect(wrapper.get('[data-testid="link-time-left"]').text()).toBe('Works once, for 3:47 more.');
  });

  it('says when the code has run out, and makes another', async () => {
    const { port, tick } = fakePeoplePort();
    const wrapper = mount(LinkDevice, { props: { port } });
    await wrapper.get('[data-testid="make-link-code"]').trigger('click');
    await flushPromises();
    tick(5 * 60_000);
    await flushPromises();
    expect(wrapper.find('[data-testid="link-qr"]').exists()).toBe(false);
    expect(wrapper.text()).toContain('This code has run out. Make another.');
    await wrapper.findAll('button').find((b) => b.text() === 'Make another code')?.trigger('click');
    await flushPromises();
    expect(port.linkCode).toHaveBeenCalledTimes(2);
    expect(wrapper.get('[data-testid="link-time-left"]').text()).toBe('Works once, for 5:00 more.');
  });

  it('stops its clock when it goes', async () => {
    const { port, ticking } = fakePeoplePort();
    const wrapper = mount(LinkDevice, { props: { port } });
    await wrapper.get('[data-testid="make-link-code"]').trigger('click');
    await flushPromises();
    expect(ticking.size).toBe(1);
    wrapper.unmount();
    expect(ticking.size).toBe(0);
  });
});
