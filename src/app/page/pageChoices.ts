/**
 * Choices to tap on this page: an answer's choices pressed, said ("the second one") or typed
 * ("hardcover") are one press. A press asks the server to take the choice first — of two pages
 * pressing at once, only one gets through — and only then sends the choice's words, as the server
 * gave them, as the person's next words; the other is told the offer is gone and shows the one taken.
 *
 * What the server says of offers (an answer kept with its choices, a choice taken) comes through
 * presence: a passive page's mirror shows it by itself, and this part lays it on the active page's
 * conversation.
 */
import type { RecogniserError } from '../../../common/conversation/events';
import type { Emitter } from '../../core/emitter';
import { choiceSaid } from '../../core/conversation/choiceSaid';
import { openOffer } from '../../core/conversation/offers';
import type { ConversationApi } from '../../platform/conversationApi';
import { sayWord } from '../../platform/words';
import type { ConversationPorts } from '../createConversation';
import type { LineKeeping } from '../lineKeeping';
import type { PresenceEvents } from '../presence';
import { sentenceOf } from '../sentenceOf';
import type { PageConversation } from './pageConversation';
import type { PageStore } from './pageStore';

export interface PageChoicesPorts {
  api: Pick<ConversationApi, 'choose'>;
  store: PageStore;
  conversation: Pick<PageConversation, 'current'>;
  keeping: Pick<LineKeeping, 'utteranceOf'>;
  presenceEvents: Pick<Emitter<PresenceEvents>, 'on'>;
  /** Sends `words` as the person's, as typing does (making this page the active one). */
  send: (words: string) => void;
  /** The reader's language, as what they say is heard. */
  language: () => string;
}

export interface PageChoices {
  /** The person pressed choice `choice` of the offer `offer` (its line's id). */
  choose: (offer: string, choice: number, via?: 'press' | 'voice') => void;
  /** The person said or typed `text`: true when it picks a choice of the open offer, which is then pressed. */
  picks: (text: string) => boolean;
  dispose: () => void;
}

type RecogniserPort = NonNullable<ConversationPorts['recogniser']>;

export function pageChoices(ports: PageChoicesPorts): PageChoices {
  const { api, store, conversation } = ports;
  /** The offer a press of this page's is being taken from, until the server answers. */
  let pressing: string | null = null;

  function choose(offer: string, choice: number, via: 'press' | 'voice' = 'press'): void {
    if (pressing !== null) return;
    pressing = offer;
    store.update({ choiceProblem: null });
    api.choose(offer, choice, via).then(
      (chosen) => {
        pressing = null;
        if (chosen.outcome === 'gone') {
          conversation.current()?.taken(offer, chosen.taken);
          store.update({ choiceProblem: { offer, sentence: sayWord('page-choices.gone') } });
          return;
        }
        conversation.current()?.taken(offer, choice);
        ports.send(chosen.words);
      },
      (error: unknown) => {
        pressing = null;
        store.update({ choiceProblem: { offer, sentence: sentenceOf(error) } });
      },
    );
  }

  function picks(text: string): boolean {
    const offer = openOffer(store.state().conversation?.lines ?? []);
    const choice = offer === null ? null : choiceSaid(text, offer.items, ports.language());
    if (offer === null || choice === null) return false;
    choose(offer.id, choice, 'voice');
    return true;
  }

  const stop = ports.presenceEvents.on('offers', (event) => {
    const here = conversation.current();
    if (here === null) return;
    if (event.kind === 'choice') {
      here.taken(event.offer, event.taken);
      return;
    }
    const utteranceId = ports.keeping.utteranceOf(event.clientId);
    if (utteranceId !== null) here.offer(utteranceId, event.text, event.offer);
  });

  return { choose, picks, dispose: stop };
}

/**
 * `recogniser` as the conversation hears it, but for the words that pick a choice (`picks` says so,
 * and presses it): those are pressed, not asked, and leave the live line.
 */
export function hearingPicks(recogniser: RecogniserPort, picks: (text: string) => boolean): RecogniserPort {
  const interims = new Set<(text: string) => void>();
  const on = (event: 'interim' | 'final' | 'ended' | 'failed', listener: (value: never) => void): (() => void) => {
    if (event === 'interim') {
      const shown = listener as (text: string) => void;
      interims.add(shown);
      const stop = recogniser.on('interim', shown);
      return () => {
        interims.delete(shown);
        stop();
      };
    }
    if (event === 'final') {
      const asked = listener as (text: string) => void;
      return recogniser.on('final', (text) => {
        if (!picks(text)) asked(text);
        else for (const shown of interims) shown('');
      });
    }
    return event === 'ended' ? recogniser.on('ended', listener as () => void) : recogniser.on('failed', listener as (error: RecogniserError) => void);
  };
  return {
    start: (language) => {
      recogniser.start(language);
    },
    stop: () => {
      recogniser.stop();
    },
    on,
  };
}
