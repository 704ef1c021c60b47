/**
 * `npm run speech`: makes the test speech clips again with espeak-ng and sox, into
 * test/e2e/speech/clips/ — the barge-in answer and voices (bargeInSpeech.ts), then the turn-taking
 * bench's sounds (turnTakingSpeech.ts), which join the same manifest. Only needed after a recipe
 * there changes; the tests themselves read the kept clips and need neither tool.
 */
import { CLIPS_DIR, clipsProblem, makeClips } from './bargeInSpeech';
import { makeTurnTakingClips, turnTakingClipsProblem } from './turnTakingSpeech';

makeClips();
makeTurnTakingClips();
const problem = clipsProblem() ?? turnTakingClipsProblem();
if (problem !== null) throw new Error(`The clips were made but do not check: ${problem}`);
console.error(`Made the test speech clips in ${CLIPS_DIR}.`);
