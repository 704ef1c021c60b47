/**
 * Who a bot is for (`for:`) and who may have it make schedules and long runs (`work:`): the one
 * admission, each audience against each kind of asker, and the file's field read at start, a bad
 * value refused naming the file.
 */
import { describe, expect, it } from 'vitest';
import { admits, needsPeopleRow, readAudience } from '../../server/audience';
import type { Asker, Audience } from '../../server/audience';
import { BotFileError, parseBotFile } from '../../server/bots';

const FILE = 'bots/private.md';
const botFile = (front: string) => `---\nname: Private\n${front}\n---\nYou help.\n`;

const ASKERS: Record<string, Asker> = {
  cookie: { kind: 'cookie', owner: false, name: null },
  passkey: { kind: 'passkey', owner: false, name: null },
  supabase: { kind: 'supabase', owner: false, name: null },
  owner: { kind: 'passkey', owner: true, name: null },
  ana: { kind: 'passkey', owner: false, name: 'ana' },
  cara: { kind: 'supabase', owner: false, name: 'cara' },
  // A bare cookie cannot be the owner or a named person, whatever it claims.
  'cookie said to be the owner': { kind: 'cookie', owner: true, name: 'ana' },
};

const admitted = (audience: Audience) => Object.entries(ASKERS).filter(([, asker]) => admits(audience, asker)).map(([who]) => who);

describe('who a bot is for', () => {
  it('admits anyone to a bot for anyone, a bare cookie included', () => {
    expect(admitted({ to: 'anyone' })).toEqual(Object.keys(ASKERS));
  });

  it('admits a passkey or Supabase person to a bot for people, never a bare cookie', () => {
    expect(admitted({ to: 'people' })).toEqual(['passkey', 'supabase', 'owner', 'ana', 'cara']);
  });

  it('admits the owner alone to a bot for the owner', () => {
    expect(admitted({ to: 'owner' })).toEqual(['owner']);
  });

  it('admits the people a list names, and the owner only when it says owner', () => {
    expect(admitted({ to: 'named', names: ['ana', 'cara'], owner: false })).toEqual(['ana', 'cara']);
    expect(admitted({ to: 'named', names: ['ana'], owner: true })).toEqual(['owner', 'ana']);
  });

  it('reads the people row only for the owner or a list, and never for a bare cookie', () => {
    expect(needsPeopleRow({ to: 'people' }, 'passkey')).toBe(false);
    expect(needsPeopleRow({ to: 'owner' }, 'passkey')).toBe(true);
    expect(needsPeopleRow({ to: 'named', names: ['ana'], owner: false }, 'supabase')).toBe(true);
    expect(needsPeopleRow({ to: 'owner' }, 'cookie')).toBe(false);
  });
});

describe('a bot file’s for: and work:', () => {
  it('is anyone and people when left out, and each word or list when given', () => {
    expect(parseBotFile(FILE, botFile(''))).toMatchObject({ for: { to: 'anyone' }, work: { to: 'people' } });
    expect(parseBotFile(FILE, botFile('for: owner\nwork: anyone'))).toMatchObject({ for: { to: 'owner' }, work: { to: 'anyone' } });
    expect(parseBotFile(FILE, botFile('for: people'))).toMatchObject({ for: { to: 'people' } });
    expect(parseBotFile(FILE, botFile('for: [ana, ben, owner]'))).toMatchObject({ for: { to: 'named', names: ['ana', 'ben'], owner: true } });
  });

  it('refuses a value it does not know, naming the file and the field', () => {
    const refused = (front: string) => () => parseBotFile(FILE, botFile(front));
    expect(refused('for: everybody')).toThrow(BotFileError);
    expect(refused('for: everybody')).toThrow('bots/private.md: for is "everybody"; it must be anyone, people, owner, or a list of names ([ana, ben]).');
    expect(refused('work: owner')).toThrow('bots/private.md: work is "owner"; it must be people (the default: a passkey or Supabase person) or anyone (a bare browser cookie too).');
    expect(refused('for: [Ana]')).toThrow('bots/private.md: for lists "Ana"; a name is the one the owner gave a person: lower-case, 1 to 40 characters, no spaces (write owner in the list for the owner).');
    expect(refused('for: [people]')).toThrow('for lists "people"');
    expect(refused('for: []')).toThrow('bots/private.md: for is a list; it must be a list of one or more names, e.g. [a, b].');
    expect(refused('for: [ana, ana]')).toThrow('bots/private.md: for lists "ana" twice.');
    expect(refused('for: { owner: true }')).toThrow('bots/private.md: for is a mapping;');
  });

  it('reads a field that is left out as its default without a file', () => {
    expect(readAudience(FILE, 'for', undefined)).toEqual({ to: 'anyone' });
    expect(readAudience(FILE, 'work', undefined)).toEqual({ to: 'people' });
  });
});
