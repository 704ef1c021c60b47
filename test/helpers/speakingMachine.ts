/**
 * The conversation machine with only its voice wired, for the tests and harness pages about
 * speaking: no recogniser, no answer stream (the test sends the answer's events), nothing saved.
 */
import { fromCallback } from 'xstate';
import { conversationMachine } from '../../src/core/conversation/conversationMachine';
import type { SpeakRequest } from '../../src/core/speaking/pieceHandover';

/** What the machine's voice actions do. */
export interface SpeakingPorts {
  /** `speak`: says one piece. */
  speak(request: SpeakRequest): void;
  /** `stopAudio`: stops what is playing. */
  stopAudio(): void;
  /** `cancelUtterance`: drops what is left of an utterance. */
  cancel(utteranceId: number): void;
}

/** `conversationMachine` speaking through `ports`, its other effects doing nothing. */
export function speakingMachine(ports: SpeakingPorts) {
  return conversationMachine.provide({
    actors: { streamAnswer: fromCallback(() => undefined) },
    actions: {
      startRecogniser: () => undefined,
      stopRecogniser: () => undefined,
      saveLine: () => undefined,
      speak: (_, request) => {
        ports.speak(request);
      },
      stopAudio: () => {
        ports.stopAudio();
      },
      cancelUtterance: (_, { utteranceId }) => {
        ports.cancel(utteranceId);
      },
    },
  });
}
