/**
 * The hearing's one tuning table (tuning.ts) is sound, and it is what the page runs: the page's
 * hearing, its conversation's yielding, its player's duck and its voice activity model take their
 * figures from it and from nowhere else.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkEchoGate } from '../../../src/core/hearing/echoGateOptions';
import { HEARING } from '../../../src/core/hearing/tuning';
import { Hearing } from '../../../src/app/hearing';
import { createConversation } from '../../../src/app/createConversation';
import type { ConversationPorts } from '../../../src/app/createConversation';

const source = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('the hearing’s tuning table', () => {
  it('holds gate options each gate accepts, and a cancelled gate that differs only where it must', () => {
    expect(checkEchoGate(HEARING.gate)).toEqual(HEARING.gate);
    expect(checkEchoGate(HEARING.cancelledGate)).toEqual(HEARING.cancelledGate);
    const differs = Object.keys(HEARING.gate).filter((key) => HEARING.gate[key as keyof typeof HEARING.gate] !== HEARING.cancelledGate[key as keyof typeof HEARING.gate]);
    expect(differs.sort()).toEqual(['coldMargin', 'margin', 'tailMs']);
  });

  it('is frozen, so nothing can tune it at run time', () => {
    expect(Object.isFrozen(HEARING)).toBe(true);
    for (const part of Object.values(HEARING)) expect(Object.isFrozen(part)).toBe(true);
  });
});

describe('the page runs exactly this table', () => {
  it('in its hearing, which the page makes with no options of its own', () => {
    expect(new Hearing({ audible: false, level: () => 0 }, () => undefined).tuning).toBe(HEARING);
    // The page's one hearing: made with the player and its barge-in callback, nothing more.
    const calls = [...source('src/app/page/pageAudio.ts').matchAll(/new Hearing\(made, \(frame\) => \{\n[^\n]*\n\s*\}\)/g)];
    expect(calls).toHaveLength(1);
    expect(source('src/app/page/pageAudio.ts').match(/new Hearing\(/g)).toHaveLength(1);
  });

  it('in its conversation’s yielding', () => {
    const ports = {
      recogniser: undefined,
      speaker: { speak: () => undefined, cancel: () => undefined, onFailed: () => () => undefined },
      player: { stop: () => undefined, duck: () => undefined, on: () => () => undefined },
      answer: async function* () {},
      keep: () => undefined,
      settle: () => Promise.reject(new Error('unused')),
      language: () => 'en',
    } satisfies ConversationPorts;
    const conversation = createConversation(ports, { recogniser: false });
    expect(conversation.actor.getSnapshot().context.yielding.pace).toBe(HEARING.yielding);
    conversation.stop();
    expect(source('src/app/page/pageConversation.ts')).not.toMatch(/yielding:/);
  });

  it('in its player’s duck and its voice activity model', () => {
    expect(source('src/platform/audio/player.ts')).toMatch(/= HEARING\.duck;/);
    expect(source('src/platform/audio/voiceActivityModel.ts')).toMatch(/hearActivity\(state, reply\.probability, HEARING\.voiceActivity\)/);
  });
});
