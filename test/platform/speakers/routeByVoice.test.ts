/**
 * Both voices behind one speaker, driven by the real conversation machine: where the fallback lives
 * (the machine re-speaks, the speakers never ask a dead endpoint again) is only shown with both.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { SpeakRequest } from '../../../src/core/speaking/pieceHandover';
import type { ConversationInput } from '../../../src/core/conversation/context';
import { createDeviceSpeaker } from '../../../src/platform/speakers/deviceSpeaker';
import { createEndpointSpeaker } from '../../../src/platform/speakers/endpointSpeaker';
import { routeByVoice } from '../../../src/platform/speakers/routeByVoice';
import type { Speaker } from '../../../src/platform/speakers/speaker';
import { speakingMachine } from '../../helpers/speakingMachine';
import { englishSay } from '../../helpers/pageWords';
import { fakeFetch, fakeTts, pcm16, pcmAnswer, RecordingPlayer, settle } from './fakes';

const ANSWER = 'Hello there. This part of the answer comes second, after the opening piece.';

/** The page's voices over fakes of the network, the worker and the player. */
function voices() {
  const player = new RecordingPlayer();
  player.playsAtOnce = true;
  const network = fakeFetch();
  const worker = fakeTts();
  const endpoint = createEndpointSpeaker({ player, grant: () => 'grant-1', voice: () => ({ name: undefined, speed: undefined }), fetch: network.fetch });
  const device = createDeviceSpeaker({ tts: worker.tts, player, voice: () => ({ name: 'F1', lang: 'en', speed: 1.05 }) });
  return { player, network, worker, speaker: routeByVoice({ device, endpoint }) };
}

/** A conversation over `speaker`, wired as the app wires one; the test plays the answer stream. */
function conversation(speaker: Speaker, player: RecordingPlayer, input: Omit<ConversationInput, 'recogniser' | 'say'>) {
  const spoken: SpeakRequest[] = [];
  const machine = speakingMachine({
    speak: (request) => {
      spoken.push(request);
      speaker.speak(request);
    },
    stopAudio: () => {
      player.stop();
    },
    cancel: (utteranceId) => {
      speaker.cancel(utteranceId);
    },
  });
  const actor = createActor(machine, { input: { recogniser: false, say: englishSay, ...input } }).start();
  player.on('started', (key) => {
    actor.send({ type: 'audio.started', ...key });
  });
  player.on('ended', (key) => {
    actor.send({ type: 'audio.ended', ...key });
  });
  speaker.onFailed(({ utteranceId, piece, voice, reason }) => {
    actor.send({ type: 'speaker.failed', utteranceId, piece, voice, reason });
  });
  const ask = (question: string, answer: string) => {
    actor.send({ type: 'user.said', text: question, via: 'keyboard', turnId: `turn-${question}` });
    const { utteranceId } = actor.getSnapshot().context;
    actor.send({ type: 'answer.delta', utteranceId, text: answer });
    actor.send({ type: 'answer.done', utteranceId });
    return utteranceId;
  };
  return { actor, spoken, ask };
}

const turnIsBack = (actor: ReturnType<typeof conversation>['actor']) => actor.getSnapshot().matches({ turn: 'listening' });

describe('both voices behind one speaker, under the conversation machine', () => {
  it('voices the same piece on the device when the endpoint fails, and never asks the endpoint again', async () => {
    const { player, network, worker, speaker } = voices();
    const talk = conversation(speaker, player, { voice: 'endpoint' });
    const first = talk.ask('Hi?', ANSWER);
    await settle();
    expect(network.sent).toHaveLength(1);
    network.sent[0]?.answer.resolve(Response.json({ error: 'no-endpoint' }, { status: 404 }));
    await settle();

    expect(talk.spoken.map((r) => `${r.piece}:${r.voice}`)).toEqual(['0:endpoint', '1:endpoint', '0:device', '1:device']);
    expect(talk.actor.getSnapshot().context.problem?.reason).toMatch(/no voice endpoint/);
    for (const asked of worker.asked) asked.finish();
    await settle();
    expect(worker.asked.map((one) => one.request.piece)).toEqual([0, 1]);
    expect(player.opened()).toEqual([`${first}:0`, `${first}:1`]);
    expect(turnIsBack(talk.actor)).toBe(true);

    const second = talk.ask('And now?', ANSWER);
    await settle();
    for (const asked of worker.asked.slice(2)) asked.finish();
    await settle();
    expect(player.opened()).toEqual([`${first}:0`, `${first}:1`, `${second}:0`, `${second}:1`]);
    expect(network.sent).toHaveLength(1);
    expect(turnIsBack(talk.actor)).toBe(true);
  });

  it('sends a new conversation that asks for the dead endpoint straight to the device, with no request and no failure', async () => {
    const { player, network, worker, speaker } = voices();
    const before = conversation(speaker, player, { voice: 'endpoint' });
    before.ask('Hi?', 'Hello.');
    await settle();
    network.sent[0]?.answer.reject(new TypeError('Failed to fetch'));
    await settle();
    expect(before.actor.getSnapshot().context.problem?.reason).toMatch(/could not be reached/);

    const after = conversation(speaker, player, { voice: 'endpoint' });
    after.ask('Hi again?', 'Hello again.');
    await settle();
    expect(after.spoken.map((r) => r.voice)).toEqual(['endpoint']);
    expect(worker.asked.map((one) => one.request.text)).toEqual(['Hello.', 'Hello again.']);
    expect(network.sent).toHaveLength(1);
    expect(after.actor.getSnapshot().context.problem).toBeNull();
  });

  it('speaks through the endpoint while it works, asking nothing of the device', async () => {
    const { player, network, worker, speaker } = voices();
    const talk = conversation(speaker, player, { voice: 'endpoint' });
    const id = talk.ask('Hi?', ANSWER);
    await settle();
    const first = pcmAnswer();
    network.sent[0]?.answer.resolve(first.response);
    first.body.push(pcm16(100, 200));
    await settle();
    const second = pcmAnswer();
    network.sent[1]?.answer.resolve(second.response);
    first.body.close();
    second.body.push(pcm16(300));
    second.body.close();
    await settle();
    expect(player.opened()).toEqual([`${id}:0`, `${id}:1`]);
    expect(worker.asked).toEqual([]);
    expect(turnIsBack(talk.actor)).toBe(true);
  });

  it('stops the reader and writes nothing more when the person talks over the endpoint voice', async () => {
    const { player, network, speaker } = voices();
    const talk = conversation(speaker, player, { voice: 'endpoint' });
    talk.ask('Hi?', ANSWER);
    await settle();
    const { response, body } = pcmAnswer();
    network.sent[0]?.answer.resolve(response);
    body.push(pcm16(100, 200));
    await settle();
    const heard = player.calls.length;

    talk.actor.send({ type: 'user.interrupted' });
    await settle();
    expect(body.cancelled).toBe(true);
    expect(network.sent.every((one) => one.signal?.aborted === true)).toBe(true);
    body.push(pcm16(300));
    await settle();
    expect(player.calls.slice(heard).filter((call) => call.kind === 'write' || call.kind === 'open')).toEqual([]);
  });

  it('synthesises and requests nothing when speech is off', async () => {
    const { player, network, worker, speaker } = voices();
    const talk = conversation(speaker, player, { voice: 'endpoint', speech: false });
    talk.ask('Hi?', ANSWER);
    await settle();
    expect(network.sent).toEqual([]);
    expect(worker.asked).toEqual([]);
    expect(turnIsBack(talk.actor)).toBe(true);
  });
});
