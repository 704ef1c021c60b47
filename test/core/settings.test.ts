import { describe, expect, it } from 'vitest';
import type { PublicBot } from '../../common/bot';
import { defaultSettings, isSpeed, reconcileSettings, SPEED_MAX, SPEED_MIN } from '../../src/core/settings';
import type { Settings } from '../../src/core/settings';
import { TALK } from '../../common/talk';
import { DEFAULT_SPEED } from '../../common/voice/config';
import { VOICES } from '../../common/voice/style';

function bot(voice: Partial<PublicBot['voice']> = {}, languages: PublicBot['languages'] = ['en', 'fr', 'de']): PublicBot {
  return {
    slug: 'ada',
    name: 'Ada',
    voice: { ...TALK, by: 'browser', visual: 'ribbon', voices: ['M2', 'F1'], language: 'fr', ...voice },
    memory: 'thread',
    languages,
  };
}

const offered = [...VOICES];

const chosen: Settings = { voice: 'F3', language: 'de', shape: 'tide', speed: 1.4, hearing: 'pushToTalk', speech: false };

describe('default settings', () => {
  it('take the voice, language and shape from the bot, the model’s own pace, an open microphone and speech on', () => {
    expect(defaultSettings(bot(), offered)).toEqual({
      voice: 'M2',
      language: 'fr',
      shape: 'ribbon',
      speed: DEFAULT_SPEED,
      hearing: 'open',
      speech: true,
    });
  });

  it('take the first offered voice when the bot names none, or names one that is not offered', () => {
    expect(defaultSettings(bot({ by: 'endpoint', voices: [] }), ['alloy', 'verse']).voice).toBe('alloy');
    expect(defaultSettings(bot({ by: 'endpoint', voices: ['nova'] }), ['alloy', 'verse']).voice).toBe('alloy');
  });

  it('keep the bot’s own voice when nothing is offered to choose from, and leave it empty when there is none', () => {
    expect(defaultSettings(bot({ by: 'endpoint', voices: ['nova'] }), []).voice).toBe('nova');
    expect(defaultSettings(bot({ by: 'endpoint', voices: [] }), []).voice).toBe('');
  });
});

describe('reconciling stored settings', () => {
  it('keeps every stored choice that is still valid for the bot', () => {
    expect(reconcileSettings(chosen, bot(), offered)).toEqual(chosen);
  });

  it('reads push to talk stored under its old name, so the choice is not lost', () => {
    expect(reconcileSettings({ ...chosen, hearing: 'hold' }, bot(), offered)).toEqual(chosen);
  });

  it('gives the defaults for nothing stored or anything that is not a record of settings', () => {
    const defaults = defaultSettings(bot(), offered);
    for (const garbage of [undefined, null, 0, 'F3', true, [], ['F3'], () => chosen, Symbol('x'), 12n]) {
      expect(reconcileSettings(garbage, bot(), offered)).toEqual(defaults);
    }
  });

  it('falls back one field at a time, keeping the rest', () => {
    const defaults = defaultSettings(bot(), offered);
    const cases: [Partial<Record<keyof Settings, unknown>>, keyof Settings][] = [
      [{ voice: 'F9' }, 'voice'],
      [{ voice: 3 }, 'voice'],
      [{ language: 'ko' }, 'language'],
      [{ language: 'klingon' }, 'language'],
      [{ shape: 'cube' }, 'shape'],
      [{ shape: null }, 'shape'],
      [{ speed: 0.49 }, 'speed'],
      [{ speed: 2.01 }, 'speed'],
      [{ speed: Number.NaN }, 'speed'],
      [{ speed: Number.POSITIVE_INFINITY }, 'speed'],
      [{ speed: '1.2' }, 'speed'],
      [{ hearing: 'push' }, 'hearing'],
      [{ speech: 'yes' }, 'speech'],
      [{ speech: 1 }, 'speech'],
    ];
    for (const [bad, field] of cases) {
      const result = reconcileSettings({ ...chosen, ...bad }, bot(), offered);
      expect(result).toEqual({ ...chosen, [field]: defaults[field] });
    }
  });

  it('drops a voice the site no longer offers and a language the bot no longer allows', () => {
    const narrowed = bot({ voices: ['M2'] }, ['fr']);
    expect(reconcileSettings(chosen, narrowed, ['M2'])).toEqual({ ...chosen, voice: 'M2', language: 'fr' });
  });

  it('keeps a missing field’s default and ignores fields it does not know', () => {
    const result = reconcileSettings({ shape: 'bloom', theme: 'dark', version: 7 }, bot(), offered);
    expect(result).toEqual({ ...defaultSettings(bot(), offered), shape: 'bloom' });
    expect(Object.keys(result).sort()).toEqual(['hearing', 'language', 'shape', 'speech', 'speed', 'voice']);
  });

  it('accepts the speed range’s own ends', () => {
    expect(reconcileSettings({ ...chosen, speed: SPEED_MIN }, bot(), offered).speed).toBe(0.5);
    expect(reconcileSettings({ ...chosen, speed: SPEED_MAX }, bot(), offered).speed).toBe(2);
  });

  it('never reads an inherited field or runs a getter', () => {
    const inherited: unknown = Object.create({ shape: 'bloom' });
    expect(reconcileSettings(inherited, bot(), offered).shape).toBe('ribbon');
    let ran = false;
    const withGetter = {
      get shape() {
        ran = true;
        return 'bloom';
      },
    };
    expect(reconcileSettings(withGetter, bot(), offered).shape).toBe('ribbon');
    expect(ran).toBe(false);
  });

  it('does not throw on a record that throws when touched', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(reconcileSettings(proxy, bot(), offered)).toEqual(defaultSettings(bot(), offered));
  });

  it('falls back to the bot’s own language when the bot lists no languages', () => {
    const bare = bot({ language: 'de' }, []);
    expect(reconcileSettings({ language: 'de' }, bare, offered).language).toBe('de');
    expect(reconcileSettings({ language: 'fr' }, bare, offered).language).toBe('de');
  });
});

describe('speed', () => {
  it('is a finite number from 0.5 to 2', () => {
    expect([0.5, 1, DEFAULT_SPEED, 2].every(isSpeed)).toBe(true);
    expect([0.4999, 2.0001, Number.NaN, Number.NEGATIVE_INFINITY, '1', null].some(isSpeed)).toBe(false);
  });
});
