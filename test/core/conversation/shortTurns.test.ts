import { describe, expect, it } from 'vitest';
import { asksToWait, beginsBackchannel, isBackchannel, SHORT_TURN_LANGUAGES } from '../../../src/core/conversation/shortTurns';

/** For each language the page offers its own list for: what is only a backchannel, what asks to wait, and what is a turn of its own. */
const HEARD = {
  en: {
    backchannels: ['Mm-hmm.', 'mhm', 'Uh-huh', 'Yeah.', 'yeah yeah', 'Right.', 'Okay', 'I see.', 'Oh, I see', 'Got it', 'Sure', 'Exactly!', 'hmm'],
    waits: ['Hold on.', 'Give me a second.', 'One moment, please.', 'Wait', 'Hang on a sec', 'okay, hold on', 'Just a moment', 'um, let me think'],
    turns: ['Wait, stop.', 'Yeah, but what about Tuesday?', 'Right, add milk', 'Actually, can you repeat that?', 'I see the problem now', 'hold on to the receipt', 'stop'],
  },
  es: {
    backchannels: ['Sí.', 'Ajá', 'Vale', 'Claro, claro', 'Ya veo', 'De acuerdo', 'mhm'],
    waits: ['Espera.', 'Un momento, por favor.', 'Dame un segundo', 'Déjame pensar'],
    turns: ['Espera, ¿qué hora es?', 'Sí, pero mañana no puedo', 'Vale, añade leche'],
  },
  fr: {
    backchannels: ['Oui.', 'Ouais', "D'accord", 'Je vois', "C'est vrai", 'Ah bon ?', 'Voilà'],
    waits: ['Attends.', 'Un instant, s’il te plaît', 'Une seconde', 'Laisse-moi réfléchir'],
    turns: ['Attends, répète ça', "D'accord, mais pas demain", 'Oui, ajoute du lait'],
  },
  de: {
    backchannels: ['Ja.', 'Genau', 'Mhm', 'Stimmt', 'Ach so', 'Verstehe', 'Natürlich'],
    waits: ['Warte.', 'Einen Moment, bitte', 'Moment mal', 'Eine Sekunde', 'Lass mich nachdenken'],
    turns: ['Warte, das stimmt nicht', 'Ja, aber nicht morgen', 'Genau, füge Milch hinzu'],
  },
} as const;

describe('short turns', () => {
  it('has a tested list for every language it knows', () => {
    expect(Object.keys(HEARD).sort()).toEqual([...SHORT_TURN_LANGUAGES].sort());
  });

  for (const [language, heard] of Object.entries(HEARD)) {
    describe(language, () => {
      it('hears a backchannel as one, and never as asking to wait', () => {
        for (const text of heard.backchannels) {
          expect(isBackchannel(text, language), text).toBe(true);
          expect(asksToWait(text, language), text).toBe(false);
        }
      });

      it('hears asking to wait as that, and never as a backchannel', () => {
        for (const text of heard.waits) {
          expect(asksToWait(text, language), text).toBe(true);
          expect(isBackchannel(text, language), text).toBe(false);
        }
      });

      it('hears anything more as a turn of its own', () => {
        for (const text of heard.turns) {
          expect(isBackchannel(text, language), text).toBe(false);
          expect(asksToWait(text, language), text).toBe(false);
        }
      });
    });
  }

  it('hears English in every language, and a language it has no list for as English', () => {
    expect(isBackchannel('okay', 'de-AT')).toBe(true);
    expect(asksToWait('hold on', 'fr')).toBe(true);
    expect(isBackchannel('mm-hmm', 'ja')).toBe(true);
    expect(asksToWait('give me a second', 'ko')).toBe(true);
  });

  it('hears the first words of a backchannel as what may still become one, as a recogniser gives them word by word', () => {
    for (const text of ['I', 'of', 'oh, I', 'fair', 'yeah, makes', 'uh']) expect(beginsBackchannel(text, 'en'), text).toBe(true);
    expect(beginsBackchannel('de', 'es')).toBe(true);
    for (const text of ['wait', 'I want', 'stop', 'actually', 'I see', '', 'the I']) expect(beginsBackchannel(text, 'en'), text).toBe(false);
    expect(beginsBackchannel('je', 'fr')).toBe(true);
    expect(beginsBackchannel('ach', 'de')).toBe(true);
  });

  it('hears nothing as neither', () => {
    for (const text of ['', '   ', '…', '?!']) {
      expect(isBackchannel(text, 'en')).toBe(false);
      expect(asksToWait(text, 'en')).toBe(false);
    }
  });
});
