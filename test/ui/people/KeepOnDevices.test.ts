// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import KeepOnDevices from '../../../src/ui/people/KeepOnDevices.vue';
import { fakePeoplePort } from './fakePeoplePort';

const button = (wrapper: ReturnType<typeof mount>, testId: string) => wrapper.get(`[data-testid="${testId}"]`);

describe('keeping Confab on a cookie person’s devices', () => {
  it('offers a passkey with one line saying what it gives, a sign-in, and a code', () => {
    const wrapper = mount(KeepOnDevices, { props: { port: fakePeoplePort().port } });
    expect(wrapper.text()).toContain('Keep this on your devices');
    expect(wrapper.text()).toContain('A passkey makes you the same person on every device you sign in on');
    expect(button(wrapper, 'sign-in-passkey').text()).toBe('Sign in with a passkey');
    expect(button(wrapper, 'enter-code').text()).toBe('Enter a code from another device');
  });

  it('makes a passkey and says who this device is now, without loading the page again', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(KeepOnDevices, { props: { port } });
    await button(wrapper, 'keep-passkey').trigger('click');
    await flushPromises();
    expect(port.keepOnDevices).toHaveBeenCalledOnce();
    expect(wrapper.emitted('kept')).toEqual([[{ kind: 'passkey', owner: true, name: null }]]);
    expect(port.reload).not.toHaveBeenCalled();
  });

  it('loads the page again as the person a passkey or a code signs in', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(KeepOnDevices, { props: { port } });
    await button(wrapper, 'sign-in-passkey').trigger('click');
    await flushPromises();
    expect(port.reload).toHaveBeenCalledTimes(1);

    await button(wrapper, 'enter-code').trigger('click');
    await button(wrapper, 'code-entered').setValue('abcd-efgh');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(port.enterCode).toHaveBeenCalledWith('abcd-efgh');
    expect(port.reload).toHaveBeenCalledTimes(2);
  });

  it('shows a refusal’s sentence as it is, and stays as it was', async () => {
    const { port } = fakePeoplePort();
    port.signInWithPasskey.mockRejectedValueOnce(new Error('No passkey was used: it was cancelled, or took too long.'));
    const wrapper = mount(KeepOnDevices, { props: { port } });
    await button(wrapper, 'sign-in-passkey').trigger('click');
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toBe('No passkey was used: it was cancelled, or took too long.');
    expect(port.reload).not.toHaveBeenCalled();
  });

  it('says where passkeys work in a browser that cannot use one here, and still takes a code', () => {
    const { port } = fakePeoplePort();
    port.passkeysHere.mockReturnValue(false);
    const wrapper = mount(KeepOnDevices, { props: { port } });
    expect(wrapper.get('[data-testid="no-passkeys"]').text()).toContain('they need HTTPS or localhost');
    expect(wrapper.find('[data-testid="keep-passkey"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="sign-in-passkey"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="enter-code"]').exists()).toBe(true);
  });

  it('offers only a passkey of the device’s own once it is linked', () => {
    const wrapper = mount(KeepOnDevices, { props: { port: fakePeoplePort().port, onlyKeep: true } });
    expect(wrapper.find('[data-testid="keep-passkey"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="sign-in-passkey"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="enter-code"]').exists()).toBe(false);
  });
});
