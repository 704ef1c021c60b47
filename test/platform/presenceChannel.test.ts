import { describe, expect, it } from 'vitest';
import { presenceChannel } from '../../src/platform/presenceChannel';
import type { ChannelMessage } from '../../src/platform/presenceChannel';

describe("the tabs' channel", () => {
  it('carries what one tab says to the others, and passes over what is not a presence message', async () => {
    const one = presenceChannel('confab.presence.test');
    const two = presenceChannel('confab.presence.test');
    if (one === null || two === null) throw new Error('Node has BroadcastChannel');
    const heard: ChannelMessage[] = [];
    const arrived = new Promise<void>((resolve) => {
      two.on((message) => {
        heard.push(message);
        if (message.type === 'live') resolve();
      });
    });
    const raw = new BroadcastChannel('confab.presence.test');
    raw.postMessage({ type: 'events', from: 'x', events: [{ kind: 'nonsense' }] });
    one.post({ type: 'events', from: 'tab-one-0001', events: [{ kind: 'notice', text: 'Hi.' }] });
    one.post({ type: 'live', from: 'tab-one-0001', live: { conversation: 'c', liveLine: 'a', phase: 'listening', draft: null } });
    await arrived;
    expect(heard.map((m) => m.type)).toEqual(['events', 'live']);
    raw.close();
    one.close();
    two.close();
  });
});
