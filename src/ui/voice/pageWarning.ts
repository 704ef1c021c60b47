/** The voice page's warnings: what each line holds, and the lines the page's state calls for. */
import type { EngineState } from '../../app/voicePage';
import type { Problem } from '../../../common/conversation/events';
import { say } from '../words';

/** One line of the page's warnings (PageWarnings.vue): one fault, however often it happened. */
export interface PageWarning {
  /** Stays the same while the warning does, so a dismissal sticks. */
  key: string;
  /** A sentence for a person. */
  text: string;
  /** What the line shows until it is opened, where the sentence is long and starts with a detail (default the sentence). */
  summary?: string;
  /** Offers "Try again" (the voice could not start). */
  retry?: boolean;
  /** The `data-testid` of its sentence. */
  testId: string;
}

/**
 * One line per fault. A voice that could not start also fails every piece it is asked for ("only
 * written"): that is the same fault, said once, with "Try again".
 */
export function pageWarnings(engine: EngineState | undefined, problem: Problem | null): PageWarning[] {
  const list: PageWarning[] = [];
  const voiceFailed = engine?.kind === 'failed';
  if (voiceFailed) list.push({ key: `voice:${engine.reason}`, text: engine.reason, summary: say('page-voice.could-not-start-short'), retry: true, testId: 'voice-problem' });
  if (problem !== null && !(voiceFailed && problem.kind === 'speaker')) list.push({ key: `${problem.kind}:${problem.reason}`, text: problem.reason, testId: 'problem' });
  return list;
}
