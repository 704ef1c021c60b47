import { describe, expect, it } from 'vitest';
import { OptionError } from '../../common/options';
import { scheduleNotices, whileAway } from '../../src/app/notices';
import { conversation } from '../helpers/conversation';
import { manualClock } from '../helpers/manualClock';
import type { Notice } from '../../common/acting/protocol';
import type { NoticeClaim } from '../../src/platform/noticesClient';

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

/** A server holding notices; each claim is answered by `claims` (default: the first claim wins). */
function server(notices: Notice[]) {
  const claimed: string[] = [];
  const looks: number[] = [];
  const answers = new Map<string, NoticeClaim | 'offline'>();
  let offline = false;
  return {
    notices,
    claimed,
    looks,
    answers,
    set offline(value: boolean) {
      offline = value;
    },
    due: () => {
      looks.push(looks.length);
      return offline ? Promise.reject(new Error('offline')) : Promise.resolve(notices.filter((n) => !claimed.includes(n.id)));
    },
    claim: (id: string): Promise<NoticeClaim> => {
      const answer = answers.get(id);
      if (answer === 'offline') return Promise.reject(new Error('offline'));
      if (answer !== undefined) return Promise.resolve(answer);
      if (claimed.includes(id)) return Promise.resolve('taken');
      claimed.push(id);
      return Promise.resolve('mine');
    },
  };
}

function setUp(notices: Notice[], startMs = 1_000_000) {
  const clock = manualClock(flush, startMs);
  const said: string[] = [];
  const s = server(notices);
  const scheduler = scheduleNotices({ due: s.due, claim: s.claim, announce: (text) => said.push(text), clock });
  return { clock, said, server: s, scheduler };
}

describe('notices', () => {
  it('says each on time, once it is claimed, and only once audio can play', async () => {
    const t = setUp([{ id: 'n1', text: 'Call the dentist.', dueAtMs: 1_300_000 }]);
    await flush();
    t.scheduler.hearable();
    await t.clock.advance(299_999);
    expect(t.said).toEqual([]);
    await t.clock.advance(1);
    expect(t.server.claimed).toEqual(['n1']);
    expect(t.said).toEqual(['Call the dentist.']);
    await t.clock.advance(600_000);
    expect(t.said).toEqual(['Call the dentist.']);
  });

  it('says nothing another page has already said (409) or that is gone (404)', async () => {
    const t = setUp([
      { id: 'n1', text: 'Call the dentist.', dueAtMs: 1_010_000 },
      { id: 'n2', text: 'Water the plants.', dueAtMs: 1_010_000 },
    ]);
    t.server.answers.set('n1', 'taken');
    t.server.answers.set('n2', 'gone');
    t.scheduler.hearable();
    await t.clock.advance(10_000);
    expect(t.said).toEqual([]);
    await t.clock.advance(120_000);
    expect(t.said).toEqual([]);
  });

  it('says what came due while no page was open together, once the first gesture lets audio play', async () => {
    const t = setUp([
      { id: 'n1', text: 'Call the dentist', dueAtMs: 900_000 },
      { id: 'n2', text: 'Water the plants.', dueAtMs: 950_000 },
      { id: 'n3', text: 'Stretch.', dueAtMs: 1_060_000 },
    ]);
    await flush();
    expect(t.server.claimed).toEqual([]);
    t.scheduler.hearable();
    await flush();
    expect(t.said).toEqual(['While you were away: Call the dentist. Water the plants.']);
    await t.clock.advance(60_000);
    expect(t.said.at(-1)).toBe('Stretch.');
  });

  it('holds a notice that comes due before audio can play, and claims it only once it can', async () => {
    const t = setUp([{ id: 'n1', text: 'Stretch.', dueAtMs: 1_005_000 }]);
    await flush();
    await t.clock.advance(10_000);
    expect(t.server.claimed).toEqual([]);
    t.scheduler.hearable();
    await flush();
    expect(t.said).toEqual(['Stretch.']);
  });

  it('looks again every minute and when asked (after a verb ran), finding notices made since', async () => {
    const t = setUp([]);
    t.scheduler.hearable();
    await flush();
    expect(t.server.looks).toHaveLength(1);
    t.server.notices.push({ id: 'n1', text: 'Tea is ready.', dueAtMs: 1_030_000 });
    await t.scheduler.refresh();
    expect(t.server.looks).toHaveLength(2);
    await t.clock.advance(30_000);
    expect(t.said).toEqual(['Tea is ready.']);
    t.server.notices.push({ id: 'n2', text: 'Later.', dueAtMs: 1_100_000 });
    await t.clock.advance(60_000);
    expect(t.server.looks).toHaveLength(3);
    await t.clock.advance(10_000);
    expect(t.said.at(-1)).toBe('Later.');
  });

  it('drops the timer of a notice no longer listed, and tries a claim again after the server was away', async () => {
    const t = setUp([{ id: 'n1', text: 'Stretch.', dueAtMs: 1_100_000 }]);
    t.scheduler.hearable();
    await flush();
    t.server.claimed.push('n1');
    await t.clock.advance(60_000);
    const timers = t.clock.timers;
    expect(timers).toBe(1);
    const u = setUp([{ id: 'n2', text: 'Tea.', dueAtMs: 1_010_000 }]);
    u.scheduler.hearable();
    u.server.answers.set('n2', 'offline');
    await u.clock.advance(10_000);
    expect(u.said).toEqual([]);
    u.server.answers.delete('n2');
    await u.clock.advance(60_000);
    expect(u.said).toEqual(['Tea.']);
  });

  it('waits for the next look when notices cannot be had', async () => {
    const clock = manualClock(flush);
    const s = server([{ id: 'n1', text: 'Tea.', dueAtMs: 1_000_000 + 90_000 }]);
    s.offline = true;
    const said: string[] = [];
    const scheduler = scheduleNotices({ due: s.due, claim: s.claim, announce: (text) => said.push(text), clock });
    scheduler.hearable();
    await clock.advance(30_000);
    s.offline = false;
    await clock.advance(60_000);
    expect(said).toEqual(['Tea.']);
  });

  it('stops every timer', async () => {
    const t = setUp([{ id: 'n1', text: 'Stretch.', dueAtMs: 1_100_000 }]);
    await flush();
    t.scheduler.stop();
    expect(t.clock.timers).toBe(0);
  });

  it('refuses to look more often than once a second', () => {
    const s = server([]);
    const ports = { due: s.due, claim: s.claim, announce: () => undefined, clock: manualClock(flush, 0) };
    expect(() => scheduleNotices(ports, { pollMs: 999 })).toThrow(OptionError);
    expect(() => scheduleNotices(ports, { pollMs: 999 })).toThrow('notices.pollMs is 999; it must be a number, 1000 or more.');
  });

  it('is queued by the conversation while an answer is under way, and said once the turn is the person’s', async () => {
    const c = conversation().user('Tell me a story.');
    const clock = manualClock(flush);
    const s = server([{ id: 'n1', text: 'Call the dentist.', dueAtMs: 1_010_000 }]);
    const said: string[] = [];
    const scheduler = scheduleNotices({
      due: s.due,
      claim: s.claim,
      announce: (text) => {
        said.push(text);
        c.announces(text);
      },
      clock,
    });
    await flush();
    scheduler.hearable();
    await clock.advance(10_000);
    expect(said).toEqual(['Call the dentist.']);
    expect(c.turn).toBe('thinking');
    c.bot('Once upon a time.').plays();
    expect(c.turn).toBe('announcing');
    expect(c.context.lines.at(-1)?.text).toBe('Call the dentist.');
  });

  it('makes a sentence of each notice said together', () => {
    expect(whileAway(['Call the dentist', 'Is the oven off?', ' Water the plants. '])).toBe('While you were away: Call the dentist. Is the oven off? Water the plants.');
  });
});
