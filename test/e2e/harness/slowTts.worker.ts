/**
 * The on-device voice's worker on a slower device, for browser tests: the product's worker
 * (workers/serveTts.ts) with every graph run of the tiny stand-in followed by a wait, as long as the
 * run would take on a device making speech at the real-time factor named in the worker's name
 * (`rtf=0.85`, at 8 steps): two thirds of it the solver's steps, a third the vocoder, a little more
 * per text position for the duration predictor and text encoder. Nothing else differs.
 */
import { serveTts } from '../../../workers/serveTts';
import { costedOrt, FRAME_MS, framesOf, positionsOf } from '../../helpers/costedOrt';

const rtf = Number(/rtf=([\d.]+)/.exec(self.name)?.[1] ?? Number.NaN);
if (!(rtf > 0)) throw new Error(`Name the slow worker's real-time factor, e.g. "rtf=0.85"; its name is "${self.name}".`);
const stepMsPerS = (rtf * 1000 * (2 / 3)) / 8;
const vocodeMsPerS = (rtf * 1000) / 3;
const PREPARE_MS_PER_POSITION = 1;

serveTts({
  adaptOrt: (ort) =>
    costedOrt(ort, async (graph, feeds) => {
      const seconds = (framesOf(graph, feeds) * FRAME_MS) / 1000;
      const waitMs =
        graph === 'vector_estimator' ? stepMsPerS * seconds : graph === 'vocoder' ? vocodeMsPerS * seconds : PREPARE_MS_PER_POSITION * positionsOf(feeds);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }),
});
