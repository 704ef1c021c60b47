/**
 * Yielding as a statechart, invoked by the conversation machine: when the echo gate hears the
 * person over the voice (`heard`), the voice ducks, and the pure decision (`yielding.ts`) hears
 * their words, the voice activity model's frames, the microphone's level and time passing until it
 * rules: the turn is theirs (`take`, with the words it held) or the voice carries on (`carryOn`) and
 * the words, a backchannel or a noise's nothing, are let go.
 *
 * Time is the clock it is started with, the one the frames carry (the audio clock on the page); the
 * decision is given time alone every `tickMs` by the machine's own `after` delay, on the actor
 * system's clock. The voice activity model counts only while its frames keep coming (`voiceFreshMs`):
 * one that stopped leaves words and time to decide. Words that are the voice's own, heard through
 * the speakers, decide nothing.
 *
 * Its effects are actions its invoker provides: the conversation machine turns each into an event
 * of its own (`machineSetup.ts`); a harness can provide plain functions.
 */
import { not, setup } from 'xstate';
import { isSelfEcho } from './selfEcho';
import type { YieldingPace } from './tuning';
import { SPEAKING, yieldTo } from './yielding';
import type { Step, YieldingInput, YieldingState } from './yielding';

/** Words from the recogniser, with the turn id a final was given when the person finished. */
export type HeardWords = { final: false; text: string } | { final: true; text: string; turnId: string };

/** @public Exported for the conversation machine's declarations, which name it. */
export interface YieldingMachineInput {
  pace: YieldingPace;
  /** The frames' clock, in ms. */
  now: () => number;
}

export type YieldingEvent =
  /** The echo gate heard the person over the voice, in the frame that ended at `atMs`, clearing `bar`. */
  | { type: 'heard'; atMs: number; bar?: number }
  /** One frame of the voice activity model: whether speech is going on. */
  | { type: 'voice'; atMs: number; speech: boolean }
  /** One frame of the microphone's level. */
  | { type: 'sound'; atMs: number; level: number }
  /** Words from the recogniser, with what the voice said lately, the person's language, and whether the voice sounds now. */
  | { type: 'words'; words: HeardWords; spoken: readonly string[]; language: string; sounding: boolean }
  /** The turn ended some other way (the voice played out, a press, a stop). */
  | { type: 'release' };

/** @public Exported for the conversation machine's declarations, which name it. */
export interface YieldingContext {
  pace: YieldingPace;
  /** Held in a record: xstate would take a bare function in context for an assigner. */
  clock: { readonly now: () => number };
  decision: YieldingState;
  /** Words held while it is decided, passed on if the turn is the person's. */
  held: HeardWords[];
  /** The voice activity model's last frame. */
  lastVoice: { atMs: number; speech: boolean } | null;
  language: string;
}

/** An effect its invoker did not provide. */
function unprovided(name: string): never {
  throw new Error(`yieldingMachine: '${name}' was not provided; supply it with machine.provide().`);
}

const named = setup({
  types: {
    context: {} as YieldingContext,
    events: {} as YieldingEvent,
    input: {} as YieldingMachineInput,
  },
  actions: {
    /** Duck the voice: the person's words decide from here. */
    duck: () => unprovided('duck'),
    /** The turn is the person's: stop the voice, and pass on the words held. */
    take: (_, _params: { words: readonly HeardWords[] }) => unprovided('take'),
    /** The voice comes back to full level; the gate hears the next sound over it afresh. */
    carryOn: () => unprovided('carryOn'),
    /** The turn ended another way while it was decided: the voice comes back, the words held go on. */
    release: (_, _params: { words: readonly HeardWords[] }) => unprovided('release'),
    /** Words that are not yielding's to decide, passed on as they came. */
    pass: (_, _params: { words: HeardWords }) => unprovided('pass'),
  },
  guards: {
    deciding: ({ context }) => context.decision.kind === 'deciding',
  },
  delays: {
    tick: ({ context }) => context.pace.tickMs,
  },
});

const { enqueueActions: decide } = named;
type Enqueue = Parameters<Parameters<typeof decide>[0]>[0]['enqueue'];

/** Whether the voice activity model's frames come in at `atMs`. */
function modelHeard(context: YieldingContext, atMs: number): boolean {
  return context.lastVoice !== null && atMs - context.lastVoice.atMs <= context.pace.voiceFreshMs;
}

/** One step of the decision, with `held` the words held after this input; runs the ruling's effects. */
function step(context: YieldingContext, input: YieldingInput, held: HeardWords[], enqueue: Enqueue): Step {
  const next = yieldTo(context.decision, input, { options: context.pace, language: context.language, voiceActivity: modelHeard(context, input.atMs) });
  enqueue.assign({ decision: next.state, held: next.ruling === 'take' || next.ruling === 'carryOn' ? [] : held });
  if (next.ruling === 'duck') enqueue('duck');
  else if (next.ruling === 'take') enqueue({ type: 'take', params: { words: held } });
  else if (next.ruling === 'carryOn') enqueue('carryOn');
  return next;
}

export const yieldingMachine = named.createMachine({
  id: 'yielding',
  context: ({ input }) => ({ pace: input.pace, clock: { now: input.now }, decision: SPEAKING, held: [], lastVoice: null, language: 'en' }),
  initial: 'aside',
  on: {
    heard: {
      actions: decide(({ context, event, enqueue }) => {
        if (event.type !== 'heard') return;
        // Speech the model was hearing already is not the person's: over a speaker, it is the voice's own leak.
        const speechBefore = context.lastVoice?.speech === true && modelHeard(context, event.atMs);
        step(context, { kind: 'heard', atMs: event.atMs, ...(event.bar === undefined ? {} : { bar: event.bar }), speechBefore }, context.held, enqueue);
      }),
    },
    voice: {
      actions: decide(({ context, event, enqueue }) => {
        if (event.type !== 'voice') return;
        const lastVoice = { atMs: Math.max(context.lastVoice?.atMs ?? event.atMs, event.atMs), speech: event.speech };
        enqueue.assign({ lastVoice });
        if (context.decision.kind === 'deciding') step({ ...context, lastVoice }, { kind: 'voice', atMs: event.atMs, speech: event.speech }, context.held, enqueue);
      }),
    },
    sound: {
      guard: 'deciding',
      actions: decide(({ context, event, enqueue }) => {
        if (event.type !== 'sound') return;
        step(context, { kind: 'sound', atMs: event.atMs, level: event.level }, context.held, enqueue);
      }),
    },
    words: {
      actions: decide(({ context, event, enqueue }) => {
        if (event.type !== 'words') return;
        const { words, spoken, sounding } = event;
        const { decision } = context;
        const open = decision.kind === 'deciding' || decision.carriedOnFromMs !== undefined;
        // Over the voice and outside a decision (or just after one the voice carried on past), the
        // recogniser hears the room, and maybe the voice itself: nothing it says is a turn.
        if (!open) {
          if (!sounding) enqueue({ type: 'pass', params: { words } });
          return;
        }
        // The voice heard through the speakers is not the person.
        if (isSelfEcho(words.text, spoken)) return;
        const language = event.language;
        const next = step({ ...context, language }, { kind: 'words', atMs: context.clock.now(), text: words.text, final: words.final }, [...context.held, words], enqueue);
        enqueue.assign({ language });
        // Late words that did not take the turn (a backchannel, or too late) are let go.
        if (next.ruling === null && next.state.kind !== 'deciding') {
          enqueue.assign({ held: [] });
          if (!sounding) enqueue({ type: 'pass', params: { words } });
        }
      }),
    },
  },
  states: {
    aside: {
      always: { guard: 'deciding', target: 'deciding' },
    },
    deciding: {
      always: { guard: not('deciding'), target: 'aside' },
      on: {
        release: {
          target: 'aside',
          actions: decide(({ context, enqueue }) => {
            enqueue.assign({ decision: SPEAKING, held: [] });
            enqueue({ type: 'release', params: { words: context.held } });
          }),
        },
      },
      initial: 'waiting',
      states: {
        waiting: {
          after: {
            tick: {
              target: 'waiting',
              reenter: true,
              actions: decide(({ context, enqueue }) => {
                step(context, { kind: 'tick', atMs: context.clock.now() }, context.held, enqueue);
              }),
            },
          },
        },
      },
    },
  },
});
