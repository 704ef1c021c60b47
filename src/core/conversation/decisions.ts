/**
 * The conversation machine's own decisions: pure updates of its context, and which of its named
 * effects (`machineSetup.ts`) to run. The chart that says when each is taken is
 * `conversationMachine.ts`.
 */
import { dropKept, endText, pushText, startChunking } from '../../../common/speaking/chunker';
import { paced, request, speakOnward } from '../speaking/pieceHandover';
import { aloud, holdList, NOTHING_HELD, releaseList } from '../speaking/choicesAloud';
import type { Handover } from '../speaking/pieceHandover';
import type { ConversationEvent, HeardWords, Problem } from '../../../common/conversation/events';
import type { ConversationContext } from './context';
import { remembered, settledLines } from './lines';
import { withOffer, withTaken } from './offers';
import { named } from './machineSetup';
import { ANSWER_PATIENCE_MS, confirmPatienceMs } from './patience';

/** The id of the child that settles `actionId`. */
const settlerOf = (actionId: string) => `settle:${actionId}`;

const { assign: set, enqueueActions: decide } = named;

/** Sends the person's answer for the pending action; with `sayIt`, its outcome is said when it comes. */
function settle(approve: boolean, sayIt: boolean) {
  return decide(({ context, enqueue }) => {
    const action = context.pendingAction;
    if (action === null) return;
    enqueue.spawnChild('settleAction', { id: settlerOf(action.id), input: { actionId: action.id, approve } });
    enqueue.assign({ pendingAction: null, awaitedAction: sayIt ? action.id : context.awaitedAction });
  });
}

/** The machine's own decisions: pure updates of its context and which named effects to run. */
export const decisions = {
  /** A new utterance: the question stays on the live line and is kept at once. */
  ask: decide(({ context, event, enqueue }) => {
    if (event.type !== 'user.said') return;
    const utteranceId = context.utteranceId + 1;
    const question = event.text.trim();
    enqueue.assign({
      utteranceId,
      question,
      turnId: event.turnId,
      liveLine: question,
      answer: '',
      chunker: startChunking(context.talk),
      listHold: NOTHING_HELD,
      pieces: [],
      settled: [],
      played: [],
      answerEnded: false,
      problem: null,
      waiting: false,
    });
    enqueue({ type: 'saveLine', params: { role: 'user', text: question, utteranceId } });
  }),
  /** The greeting is an answer to nothing: the whole of it is known, so it is cut and spoken at once. */
  greet: decide(({ context, event, enqueue }) => {
    if (event.type !== 'bot.greets') return;
    say(context, event.text, enqueue);
  }),
  /** What waited to be said, said now: the oldest first, the rest wait their turn. */
  announceNext: decide(({ context, enqueue }) => {
    const [next, ...rest] = context.announcements;
    if (next === undefined) return;
    // A run's question, once said, is what the person's next yes or no answers.
    const [ask, ...otherAsks] = context.asks;
    const asking = ask !== undefined && ask.question === next && context.pendingAction === null;
    const announcedAbout = context.announcedAbout.slice(1);
    enqueue.assign({ announcements: rest, announcedAbout, ...(asking ? { asks: otherAsks, pendingAction: ask } : {}) });
    say({ ...context, announcements: rest, announcedAbout, ...(asking ? { asks: otherAsks, pendingAction: ask } : {}) }, next, enqueue);
  }),
  /** A run's question waits to be said like an announcement, once (the same question twice is asked once). */
  queueAsk: set(({ context, event }) => {
    if (event.type !== 'bot.asks' || context.asks.some((a) => a.id === event.action.id) || context.pendingAction?.id === event.action.id) return {};
    const ask = { ...event.action, patienceMs: confirmPatienceMs(event.action.expiresAtMs, event.atMs) };
    return { asks: [...context.asks, ask], announcements: [...context.announcements, ask.question] };
  }),
  /** Waits to be said until the turn is the person's and they are quiet. */
  queueAnnouncement: set(({ context, event }) => {
    if (event.type !== 'bot.announces' || event.text.trim() === '') return {};
    const about = event.about ?? null;
    const kept = withoutAbout(context, about);
    return { announcements: [...kept.announcements, event.text.trim()], announcedAbout: [...padded(kept), about] };
  }),
  /** What waited to be said about something that is no longer news, dropped unsaid. */
  withdrawAnnouncement: set(({ context, event }) => (event.type === 'bot.withdraws' ? withoutAbout(context, event.about) : {})),
  /** The door asks the person to confirm a verb: it is pending, waiting for their answer once the answer has been said. */
  takePending: set({
    pendingAction: ({ context, event }) =>
      event.type === 'answer.confirm' ? { ...event.action, patienceMs: confirmPatienceMs(event.action.expiresAtMs, event.atMs) } : context.pendingAction,
  }),
  /** The person's yes: the pending action is approved, and its outcome said when it comes. */
  approve: settle(true, true),
  /** The person's no (or no answer in time): the pending action is refused, and the outcome said. */
  refuse: settle(false, true),
  /** The person went on to something else: the action is refused, and that something is answered instead. */
  refuseQuietly: settle(false, false),
  /** The server's sentence for the awaited action, said now as the answer to the person's yes or no. */
  sayOutcome: decide(({ context, event, enqueue }) => {
    if (event.type !== 'action.settled' && event.type !== 'action.failed') return;
    enqueue.stopChild(settlerOf(event.actionId));
    const next = { ...context, awaitedAction: null };
    enqueue.assign({ awaitedAction: null });
    // A yes or a no that was said is the question this sentence answers; a press or a timeout is not.
    say(next, event.sentence, enqueue, next.question !== null);
  }),
  /** The outcome of the awaited action came while the turn was elsewhere: it waits to be said. */
  queueOutcome: decide(({ context, event, enqueue }) => {
    if (event.type !== 'action.settled' && event.type !== 'action.failed') return;
    enqueue.stopChild(settlerOf(event.actionId));
    enqueue.assign({ awaitedAction: null, announcements: [...context.announcements, event.sentence] });
  }),
  /** An outcome nobody waits to hear (the person went on to something else): its settler is let go. */
  dropOutcome: decide(({ event, enqueue }) => {
    if (event.type === 'action.settled' || event.type === 'action.failed') enqueue.stopChild(settlerOf(event.actionId));
  }),
  takeDelta: decide(({ context, event, enqueue }) => {
    if (event.type !== 'answer.delta') return;
    // A line's last word, and a list after it, wait to be said until it is known whether they offer choices.
    const { hold, pass } = holdList(context.listHold, event.text);
    const { state, pieces } = pushText(context.chunker, pass, { keep: paced(context) });
    const first = context.answer === '';
    const answer = context.answer + event.text;
    enqueue.assign({ answer, listHold: hold, ...(first ? { liveLine: '' } : {}) });
    enqueue.assign({ lines: ({ context: next }) => settledLines(next, false) });
    handOver(enqueue, speakOnward({ ...context, chunker: state }, pieces, event.atMs));
  }),
  endAnswer: decide(({ context, event, enqueue }) => {
    const keep = paced(context);
    const held = pushText(context.chunker, releaseList(context.listHold, context.answer, context.language), { keep });
    const { state, pieces } = endText(held.state, { keep });
    enqueue.assign({ answerEnded: true, liveLine: '', listHold: NOTHING_HELD });
    enqueue.assign({ lines: ({ context: next }) => settledLines(next, false) });
    handOver(enqueue, speakOnward({ ...context, chunker: state }, [...held.pieces, ...pieces], event.type === 'answer.done' ? event.atMs : undefined));
  }),
  /** The server kept an answer ending in choices: its line shows the words, and the choices under them. */
  keepOffer: set(({ context, event }) => (event.type === 'offer.kept' ? { lines: [...withOffer(context.lines, event.utteranceId, event.text, event.offer)] } : {})),
  /** A choice was taken, here or on another page: its offer is spent. */
  markTaken: set(({ context, event }) => (event.type === 'offer.taken' ? { lines: [...withTaken(context.lines, event.offer, event.taken)] } : {})),
  // The sentences already kept are still said, as the voice is ready for them; what was
  // mid-sentence is written only.
  failAnswer: decide(({ context, event, enqueue }) => {
    const reason = event.type === 'answer.failed' ? event.reason : context.words.say('page-answers.stopped');
    const next = { ...context, answerEnded: true, liveLine: '' };
    enqueue.assign({ answerEnded: true, liveLine: '', lines: settledLines(next, false), problem: { kind: 'answer', reason } satisfies Problem });
    if (!paced(context)) enqueue.assign({ chunker: dropKept(context.chunker) });
  }),
  /** The on-device voice's pace: kept, and the next piece cut for it when it is ready for one. */
  takePace: decide(({ context, event, enqueue }) => {
    if (event.type !== 'voice.paced') return;
    enqueue.assign({ pace: event.pace });
    handOver(enqueue, speakOnward({ ...context, pace: event.pace }, [], event.pace.atMs));
  }),
  giveUpWaiting: decide(({ context, enqueue }) => {
    const seconds = Math.round(ANSWER_PATIENCE_MS / 1000);
    enqueue.assign({
      answerEnded: true,
      liveLine: '',
      lines: settledLines(context, false),
      problem: { kind: 'answer', reason: context.words.say('page-answers.too-slow', { seconds }) },
    });
  }),
  /** The person asked to be waited for: the live line clears, and nothing is said until they go on. */
  waitForMore: set({ waiting: true, liveLine: '' }),
  pressTalk: set({ talkHeld: true }),
  markPlayed: set({
    played: ({ context, event }) => (event.type === 'audio.started' ? context.played.map((was, i) => was || i === event.piece) : context.played),
  }),
  settlePiece: set({
    settled: ({ context, event }) =>
      event.type === 'audio.ended' ? context.settled.map((done, i) => done || i === event.piece) : context.settled,
  }),
  recoverSpeaker: decide(({ context, event, enqueue }) => {
    if (event.type !== 'speaker.failed') return;
    const problem: Problem = { kind: 'speaker', reason: event.reason };
    if (event.voice === 'endpoint' && context.speech) {
      enqueue.assign({ voice: 'device', problem });
      context.pieces.forEach((text, piece) => {
        if (piece < event.piece || context.settled[piece] === true) return;
        enqueue({ type: 'speak', params: request(context, piece, text, 'device') });
      });
      return;
    }
    enqueue.assign({ problem, settled: context.settled.map((done, i) => done || i === event.piece) });
  }),
  bargeIn: decide(({ context, enqueue }) => {
    if (context.pieces.length > 0) enqueue('stopAudio');
    enqueue({ type: 'cancelUtterance', params: { utteranceId: context.utteranceId } });
    const lines = settledLines(context, true);
    const said = lines.find((l) => l.role === 'assistant' && l.utteranceId === context.utteranceId);
    if (said) enqueue({ type: 'saveLine', params: said });
    enqueue.assign({
      lines,
      liveLine: '',
      question: null,
      recentlySpoken: remembered(context),
      chunker: dropKept(context.chunker),
      pieces: [],
      settled: [],
      played: [],
      answerEnded: true,
      heardOver: false,
    });
  }),
  showInterim: set({ liveLine: ({ event }) => (event.type === 'user.interim' ? event.text : '') }),
  finishTurn: decide(({ context, enqueue }) => {
    const said = context.lines.find((l) => l.role === 'assistant' && l.utteranceId === context.utteranceId);
    if (said) enqueue({ type: 'saveLine', params: said });
    enqueue.assign({ question: null, recentlySpoken: remembered(context), pieces: [], settled: [], played: [], heardOver: false });
  }),
  silence: decide(({ context, enqueue }) => {
    if (context.pieces.length > 0) enqueue('stopAudio');
    enqueue({ type: 'cancelUtterance', params: { utteranceId: context.utteranceId } });
    enqueue.assign({ settled: context.settled.map(() => true), chunker: dropKept(context.chunker) });
  }),
  /** Yielding gave the turn to the person: the voice stops as at any barge-in, and the words it held go on, in order. */
  takeTurn: decide(({ event, enqueue }) => {
    if (event.type !== 'yielding.took') return;
    enqueue.raise({ type: 'user.interrupted' });
    for (const words of event.words) enqueue.raise(spokenEvent(words));
  }),
  passWords: decide(({ event, enqueue }) => {
    const words = event.type === 'yielding.passed' ? [event.words] : event.type === 'yielding.released' ? event.words : [];
    for (const heard of words) enqueue.raise(spokenEvent(heard));
  }),
  /** The voice stopped sounding: a decision under way ends, and what it held goes on. */
  releaseYielding: decide(({ enqueue }) => {
    enqueue.sendTo('yielding', { type: 'release' });
  }),
  applySettings: set(({ context, event }) => {
    if (event.type !== 'settings.changed') return {};
    const pushToTalk = event.pushToTalk ?? context.pushToTalk;
    return { speech: event.speech ?? context.speech, pushToTalk, talkHeld: pushToTalk && context.talkHeld, language: event.language ?? context.language };
  }),
};

type Enqueue = Parameters<Parameters<typeof decide>[0]>[0]['enqueue'];

/**
 * Says `text`, known whole, as an answer: cut and handed to the speaker at once, and shown. It is
 * a new utterance (an answer to nothing), or with `answering` the answer to the question being answered.
 */
function say(context: ConversationContext, text: string, enqueue: Enqueue, answering = false): void {
  const utteranceId = answering ? context.utteranceId : context.utteranceId + 1;
  const said = text.trim();
  const opened = {
    ...context,
    utteranceId,
    question: answering ? context.question : null,
    // The person's yes or no leaves the live line as its answer is said, as a question does.
    liveLine: answering ? '' : context.liveLine,
    answer: said,
    pieces: [],
    settled: [],
    played: [],
    answerEnded: true,
    problem: null,
  };
  enqueue.assign({ ...opened, lines: settledLines(opened, false) });
  const keep = paced(context);
  const pushed = pushText(startChunking(context.talk), aloud(said, context.language), { keep });
  const ended = endText(pushed.state, { keep });
  handOver(enqueue, speakOnward({ ...opened, chunker: ended.state }, [...pushed.pieces, ...ended.pieces], undefined));
}

/** Keeps what a handover changed and runs its `speak` effects, in order. */
function handOver(enqueue: Enqueue, handover: Handover): void {
  enqueue.assign(handover.update);
  for (const params of handover.speak) enqueue({ type: 'speak', params });
}

/** The announcements without those about `about` (none dropped for null). */
function withoutAbout(context: Pick<ConversationContext, 'announcements' | 'announcedAbout'>, about: string | null): Pick<ConversationContext, 'announcements' | 'announcedAbout'> {
  const abouts = padded(context);
  if (about === null || !abouts.includes(about)) return { announcements: context.announcements, announcedAbout: abouts };
  const keep = abouts.map((a) => a !== about);
  return { announcements: context.announcements.filter((_, i) => keep[i]), announcedAbout: abouts.filter((_, i) => keep[i]) };
}

/** `announcedAbout` as long as `announcements` (what was queued without an `about` is about nothing). */
function padded(context: Pick<ConversationContext, 'announcements' | 'announcedAbout'>): (string | null)[] {
  return context.announcements.map((_, i) => context.announcedAbout[i] ?? null);
}

/** The machine's event for words from the recogniser, once they are the conversation's. */
function spokenEvent(words: HeardWords): ConversationEvent {
  return words.final ? { type: 'user.said', text: words.text, via: 'voice', turnId: words.turnId } : { type: 'user.interim', text: words.text };
}
