/** Narration for the active page: what finished away from the conversation, a burst said as one sentence once it is quiet. */
import { dueAt, heard, SILENT } from '../../core/presence/narration';
import type { Narration } from '../../core/presence/narration';
import type { PresenceClock } from './ports';

export interface Narrator {
  /** Says `text` between turns, a burst as one sentence. */
  narrate: (text: string) => void;
  stop: () => void;
}

/** `debounceMs`: how long a burst must be quiet before `say` is called with it. */
export function narrator(clock: PresenceClock, debounceMs: number, say: (sentence: string) => void): Narrator {
  let narration: Narration = SILENT;
  let cancel: (() => void) | null = null;

  function look(): void {
    cancel?.();
    cancel = null;
    const due = dueAt(narration, clock.nowMs(), { debounceMs });
    narration = due.narration;
    if (due.say !== null) say(due.say);
    if (due.lookAtMs !== null) cancel = clock.after(due.lookAtMs - clock.nowMs(), look);
  }

  return {
    narrate(text) {
      narration = heard(narration, text, clock.nowMs());
      look();
    },
    stop() {
      cancel?.();
    },
  };
}
