/**
 * `npm run speech`: makes the barge-in tests' speech clips again with espeak-ng and sox, into
 * test/e2e/speech/clips/ (see bargeInSpeech.ts). Only needed after the recipe there changes; the
 * tests themselves read the kept clips and need neither tool.
 */
import { CLIPS_DIR, clipsProblem, makeClips } from './bargeInSpeech';

makeClips();
const problem = clipsProblem();
if (problem !== null) throw new Error(`The clips were made but do not check: ${problem}`);
console.error(`Made the test speech clips in ${CLIPS_DIR}.`);
