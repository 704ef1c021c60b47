/**
 * Saying notices on time (something an app asked to be said at a time) from the page the person has open. The scheduler
 * looks for notices as the page opens, after a turn in which a verb ran (it may have made one), and
 * every minute; it keeps a timer for each one coming due, and when one is due it claims it and says
 * it only if the claim is this page's — of several open pages exactly one says it.
 *
 * Nothing is claimed until audio can play (the person's first gesture): a notice claimed and never
 * heard would be lost. Notices that came due while no page was open are said together, once:
 * "While you were away: <text>. <text>." Time and timers are injected, so it runs on a fake clock.
 */
import type { Notice } from '../../common/acting/protocol';
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';
import type { NoticeClaim } from '../platform/noticesClient';
import { sayWord } from '../platform/words';

/** The clock and timers the scheduler runs on. */
interface NoticeClock {
  /** Now, in ms since the epoch. */
  nowMs(): number;
  /** Calls `run` after `delayMs`; answers a way to cancel it. */
  after(delayMs: number, run: () => void): () => void;
}

export interface NoticesPorts {
  /** The notices for this bot that are overdue or coming due; rejects when they cannot be had. */
  due(): Promise<readonly Notice[]>;
  /** Claims a notice as this page's to say; rejects when the server cannot be reached. */
  claim(noticeId: string): Promise<NoticeClaim>;
  /** Says `text` (the conversation says it as soon as the turn is the person's). */
  announce(text: string): void;
  clock: NoticeClock;
}

export interface NoticesOptions {
  /** How often to look for notices, in ms. Default 60 000. */
  pollMs: number;
}

const NOTICES_DEFAULTS: Readonly<NoticesOptions> = Object.freeze({ pollMs: 60_000 });

const LIMITS: Limits<NoticesOptions> = { pollMs: { min: 1_000 } };

/** The longest a timer may be set for, in ms (browsers fire a longer `setTimeout` at once). */
const LONGEST_TIMER_MS = 2_147_483_647;

export interface NoticeScheduler {
  /** Looks for notices now (the page opened; a verb ran). Never rejects: a failure waits for the next look. */
  refresh(): Promise<void>;
  /** Audio can play now: what came due until now is claimed and said. */
  hearable(): void;
  /** Stops every timer; nothing more is claimed or said. */
  stop(): void;
}

/** The sentence for notices that came due while no page was open. */
export function whileAway(texts: readonly string[]): string {
  return sayWord('page-talk.while-away', { notices: texts.map(asSentence).join(' ') });
}

function asSentence(text: string): string {
  const said = text.trim();
  return /[.!?…]["”’)]?$/u.test(said) ? said : `${said}.`;
}

interface Scheduled {
  notice: Notice;
  /** It was already overdue when the page first looked: it came due while no page was open. */
  away: boolean;
  cancel: (() => void) | null;
}

export function scheduleNotices(ports: NoticesPorts, options: Partial<NoticesOptions> = {}): NoticeScheduler {
  const { pollMs } = resolveOptions('notices', NOTICES_DEFAULTS, options, LIMITS);
  const { clock } = ports;
  /** Notices known and not yet claimed, by id. */
  const scheduled = new Map<string, Scheduled>();
  /** Notices claimed (said here or elsewhere) or gone: never again. */
  const settled = new Set<string>();
  /** Notices come due and waiting to be claimed (until audio can play). */
  let due: Scheduled[] = [];
  let looked = false;
  let canBeHeard = false;
  let stopped = false;
  /** Read through a call: a stop may come while a fetch or a claim is awaited. */
  const gone = () => stopped;

  function comeDue(entry: Scheduled): void {
    entry.cancel = null;
    due.push(entry);
    void deliver();
  }

  async function deliver(): Promise<void> {
    if (!canBeHeard || due.length === 0 || gone()) return;
    const batch = due.sort((a, b) => a.notice.dueAtMs - b.notice.dueAtMs);
    due = [];
    const claims = await Promise.all(
      batch.map((entry) =>
        ports.claim(entry.notice.id).then(
          (claim) => claim,
          () => null,
        ),
      ),
    );
    if (gone()) return;
    const mine: Scheduled[] = [];
    batch.forEach((entry, i) => {
      const claim = claims[i] ?? null;
      // Unclaimed for want of a server: forgotten here, so the next look finds it again.
      if (claim === null) {
        scheduled.delete(entry.notice.id);
        return;
      }
      scheduled.delete(entry.notice.id);
      settled.add(entry.notice.id);
      if (claim === 'mine') mine.push(entry);
    });
    const away = mine.filter((entry) => entry.away);
    if (away.length > 0) ports.announce(whileAway(away.map((entry) => entry.notice.text)));
    for (const entry of mine) if (!entry.away) ports.announce(entry.notice.text);
  }

  async function refresh(): Promise<void> {
    let notices: readonly Notice[];
    try {
      notices = await ports.due();
    } catch {
      return;
    }
    if (gone()) return;
    const nowMs = clock.nowMs();
    const first = !looked;
    looked = true;
    const listed = new Set(notices.map((n) => n.id));
    // A notice no longer listed was said by another page (or withdrawn): its timer goes.
    for (const [id, entry] of scheduled) {
      if (!listed.has(id) && entry.cancel !== null) {
        entry.cancel();
        scheduled.delete(id);
      }
    }
    for (const notice of notices) {
      if (settled.has(notice.id) || scheduled.has(notice.id)) continue;
      const entry: Scheduled = { notice, away: first && notice.dueAtMs <= nowMs, cancel: null };
      scheduled.set(notice.id, entry);
      if (notice.dueAtMs <= nowMs) {
        due.push(entry);
      } else {
        entry.cancel = clock.after(Math.min(notice.dueAtMs - nowMs, LONGEST_TIMER_MS), () => {
          comeDue(entry);
        });
      }
    }
    void deliver();
  }

  let cancelPoll: (() => void) | null = null;
  const poll = () => {
    cancelPoll = clock.after(pollMs, () => {
      void refresh();
      poll();
    });
  };
  poll();
  void refresh();

  return {
    refresh,
    hearable() {
      canBeHeard = true;
      void deliver();
    },
    stop() {
      stopped = true;
      cancelPoll?.();
      for (const entry of scheduled.values()) entry.cancel?.();
      scheduled.clear();
      due = [];
    },
  };
}
