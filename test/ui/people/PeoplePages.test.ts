// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import InvitePage from '../../../src/ui/people/InvitePage.vue';
import LinkPage from '../../../src/ui/people/LinkPage.vue';
import { fakePeoplePort } from './fakePeoplePort';

describe('the link page', () => {
  it('offers the code from the address, uses it, and then offers a passkey of this device’s own', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(LinkPage, { props: { code: 'ABCD-EFGH', port } });
    expect((wrapper.get('[data-testid="link-page-code"]').element as HTMLInputElement).value).toBe('ABCD-EFGH');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(port.enterCode).toHaveBeenCalledWith('ABCD-EFGH');
    expect(wrapper.get('[data-testid="linked"]').text()).toBe('This device is you now.');
    expect(wrapper.find('[data-testid="keep-passkey"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="sign-in-passkey"]').exists()).toBe(false);
  });

  it('shows why a code was refused', async () => {
    const { port } = fakePeoplePort();
    port.enterCode.mockRejectedValueOnce(new Error('That code has run out; make another on the other device.'));
    const wrapper = mount(LinkPage, { props: { code: 'ABCD-EFGH', port } });
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toBe('That code has run out; make another on the other device.');
  });
});

describe('the name page', () => {
  it('asks a cookie person to keep Confab on their devices first, then gives them the name', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(InvitePage, { props: { token: 'tok', port } });
    await flushPromises();
    expect(wrapper.find('[data-testid="take-name"]').exists()).toBe(false);
    await wrapper.get('[data-testid="keep-passkey"]').trigger('click');
    await flushPromises();
    await wrapper.get('[data-testid="take-name"]').trigger('click');
    await flushPromises();
    expect(port.acceptInvite).toHaveBeenCalledWith('tok');
    expect(wrapper.get('[data-testid="named"]').text()).toBe('You are ana here now.');
  });

  it('says a link without its token is missing its end', async () => {
    const wrapper = mount(InvitePage, { props: { token: '', port: fakePeoplePort().port } });
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toBe('This link is missing its end; ask for it again.');
  });
});
