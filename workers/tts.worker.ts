/** The on-device voice's worker: the voice served as it is (see serveTts.ts). */
import { serveTts } from './serveTts';

serveTts();
