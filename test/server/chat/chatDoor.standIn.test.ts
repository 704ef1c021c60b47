import { describe, expect, it } from 'vitest';
import type { Sleep } from '../../../server/chat/standIn';
import { ask, closedAfterEach, provider, startDoor, streamed } from './door';
import { answering, startUpstream } from './localServers';

const track = closedAfterEach();


describe('the chat door, while nothing may be bought', () => {
  it('has the stand-in answer when providers are configured but AGENTS_LIVE is off, buying nothing', async () => {
    const upstream = track(await startUpstream(answering(['Bought!'])));
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], live: false }));
    const { pieces, text, provider: answered } = await streamed(door, 'What is the weather like?');

    expect(answered).toBe('stand-in');
    expect(text).toContain('AGENTS_LIVE has not been switched on');
    expect(text).toContain('I heard you say: "What is the weather like?"');
    expect(pieces.length).toBeGreaterThan(20);
    expect(upstream.received).toHaveLength(0);
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'stand-in', model: 'confab-stand-in', costUsd: 0, ended: 'stop' });
    expect((await door.nextAnswered()).provider).toBe('stand-in');
  });

  it('has the stand-in say there is no provider when none is configured, even with AGENTS_LIVE on', async () => {
    const door = track(await startDoor({ providers: [], live: true }));
    const { text } = await streamed(door, '  Is   anyone\nthere?  ');
    expect(text).toContain('this server has no model provider set up');
    expect(text).toContain('I heard you say: "Is anyone there?"');
  });

  it('streams the stand-in word by word at the pace it is given', async () => {
    const waits: number[] = [];
    const sleep: Sleep = (ms) => {
      waits.push(ms);
      return Promise.resolve();
    };
    const door = track(await startDoor({ providers: [], sleep, standInWordMs: 25 }));
    const { pieces } = await streamed(door, 'Hello');
    expect(waits.length).toBe(pieces.length - 1);
    expect(new Set(waits)).toEqual(new Set([25]));
  });

  it('gives the stand-in as one completion when the caller does not stream', async () => {
    const door = track(await startDoor({ providers: [], live: false }));
    const completion = await door.client.chat.completions.create(ask('Testing one two'));
    expect(completion.model).toBe('confab-stand-in');
    expect(completion.choices[0]?.message.content).toContain('I heard you say: "Testing one two"');
  });
});
