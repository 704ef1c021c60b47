// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import DeviceList from '../../../src/ui/people/DeviceList.vue';
import { TWO_DEVICES, fakePeoplePort } from './fakePeoplePort';

async function opened(start = TWO_DEVICES) {
  const fake = fakePeoplePort({ devices: start });
  const wrapper = mount(DeviceList, { props: { port: fake.port } });
  await flushPromises();
  return { ...fake, wrapper };
}

describe('Devices', () => {
  it('lists passkeys and signed-in devices by what made them and when, this device marked', async () => {
    const { wrapper } = await opened();
    const passkeys = wrapper.findAll('[data-testid="passkey"]');
    expect(passkeys).toHaveLength(1);
    expect(passkeys[0]?.text()).toMatch(/Chrome on Linux · synced\s*last used .*2026/);
    const devices = wrapper.findAll('[data-testid="device"]');
    expect(devices.map((d) => d.attributes('data-this-device'))).toEqual(['true', 'false']);
    expect(devices[0]?.text()).toMatch(/Chrome on Linux · this device\s*signed in with a passkey · last seen .*2026/);
    expect(devices[1]?.text()).toMatch(/Safari on iPhone\s*linked with a code · last seen/);
  });

  it('offers a device that came by a code a passkey of its own, and stops once it has one', async () => {
    const linked = { ...TWO_DEVICES, devices: TWO_DEVICES.devices.map((d) => ({ ...d, thisDevice: d.via === 'link' })) };
    const { wrapper, port, people } = await opened(linked);
    expect(wrapper.get('[data-testid="keep-on-devices"]').find('[data-testid="sign-in-passkey"]').exists()).toBe(false);
    people.devices = { ...linked, devices: linked.devices.map((d) => (d.thisDevice ? { ...d, via: 'passkey' as const } : d)) };
    await wrapper.get('[data-testid="keep-passkey"]').trigger('click');
    await flushPromises();
    expect(port.keepOnDevices).toHaveBeenCalledOnce();
    expect(wrapper.find('[data-testid="keep-on-devices"]').exists()).toBe(false);
  });

  it('does not offer a device signed in by a passkey another', async () => {
    const { wrapper } = await opened();
    expect(wrapper.find('[data-testid="keep-on-devices"]').exists()).toBe(false);
  });

  it('removes another device at once', async () => {
    const { wrapper, port } = await opened();
    await wrapper.get('button[aria-label="Remove Safari on iPhone"]').trigger('click');
    await flushPromises();
    expect(port.removeDevice).toHaveBeenCalledWith('s2');
    expect(wrapper.findAll('[data-testid="device"]')).toHaveLength(1);
    expect(wrapper.find('[data-testid="remove-last"]').exists()).toBe(false);
  });

  it('asks before removing the last passkey, and removes it only on the second yes', async () => {
    const { wrapper, port } = await opened();
    await wrapper.get('button[aria-label="Remove Chrome on Linux"]').trigger('click');
    const asking = wrapper.get('[data-testid="remove-last"]');
    expect(asking.text()).toContain('This is your last passkey.');
    expect(port.removePasskey).not.toHaveBeenCalled();
    await asking.findAll('button').find((b) => b.text() === 'Keep it')?.trigger('click');
    expect(wrapper.find('[data-testid="remove-last"]').exists()).toBe(false);

    await wrapper.get('button[aria-label="Remove Chrome on Linux"]').trigger('click');
    await wrapper.get('[data-testid="remove-last"]').findAll('button').find((b) => b.text() === 'Remove it')?.trigger('click');
    await flushPromises();
    expect(port.removePasskey).toHaveBeenCalledWith('pk1');
    expect(wrapper.findAll('[data-testid="passkey"]')).toHaveLength(0);
  });

  it('asks before removing the only device, and removing this one signs it out', async () => {
    const only = { ...TWO_DEVICES, devices: TWO_DEVICES.devices.slice(0, 1) };
    const { wrapper, port } = await opened(only);
    const remove = wrapper.get('[data-testid="device"]').get('button');
    await remove.trigger('click');
    expect(wrapper.get('[data-testid="remove-last"]').text()).toContain('This is your only signed-in device.');
    await wrapper.get('[data-testid="remove-last"]').findAll('button').find((b) => b.text() === 'Remove it')?.trigger('click');
    await flushPromises();
    expect(port.signOut).toHaveBeenCalledOnce();
    expect(port.removeDevice).not.toHaveBeenCalled();
  });

  it('signs this device out', async () => {
    const { wrapper, port } = await opened();
    expect(wrapper.text()).toContain('Signs this device out; your other devices stay signed in.');
    await wrapper.get('[data-testid="sign-out"]').trigger('click');
    await flushPromises();
    expect(port.signOut).toHaveBeenCalledOnce();
  });
});
