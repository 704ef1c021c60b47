/**
 * onnxruntime-web with a cost laid on every graph run, for a device slower than the one running the
 * test: after each run the session calls `after` with the graph (told by its inputs), its feeds and
 * how long the real run took, and answers only once `after` has. The benchmark sleeps there to
 * slow the stand-in to a chosen real-time factor; the keeping-up test moves a simulated clock by
 * what the run would cost on the device it plays; the browser tests' slow worker waits that long.
 * Imports no more than a worker can hold.
 */
import type * as Ort from 'onnxruntime-web';
import type { GraphName } from '../../common/voice/contract';

type OrtModule = typeof Ort;

/** Which graph a session is, by its inputs. */
function graphOf(inputNames: readonly string[]): GraphName {
  if (inputNames.includes('noisy_latent')) return 'vector_estimator';
  if (inputNames.includes('style_dp')) return 'duration_predictor';
  if (inputNames.includes('style_ttl')) return 'text_encoder';
  return 'vocoder';
}

export type AfterRun = (graph: GraphName, feeds: Readonly<Record<string, Ort.Tensor>>, tookMs: number) => Promise<void> | void;

export function costedOrt(ort: OrtModule, after: AfterRun): OrtModule {
  const create = async (...args: Parameters<typeof ort.InferenceSession.create>) => {
    const session = await ort.InferenceSession.create(...args);
    const graph = graphOf(session.inputNames);
    return new Proxy(session, {
      get(target, key, receiver) {
        if (key !== 'run') return Reflect.get(target, key, receiver) as unknown;
        return async (feeds: Record<string, Ort.Tensor>) => {
          const beganMs = performance.now();
          const out = await target.run(feeds);
          await after(graph, feeds, performance.now() - beganMs);
          return out;
        };
      },
    });
  };
  return { ...ort, InferenceSession: { ...ort.InferenceSession, create } } as unknown as OrtModule;
}

/** Audio one latent frame makes, in ms: 3,072 samples (`ae.base_chunk_size` × `ttl.chunk_compress_factor`) at 44.1 kHz. */
export const FRAME_MS = (3072 / 44_100) * 1000;

/** Latent frames a vector-estimator or vocoder run works on (0 for the text graphs). */
export function framesOf(graph: GraphName, feeds: Readonly<Record<string, Ort.Tensor>>): number {
  const latent = graph === 'vector_estimator' ? feeds.noisy_latent : graph === 'vocoder' ? feeds.latent : undefined;
  return latent?.dims[2] ?? 0;
}

/** Text positions a duration-predictor or text-encoder run reads (0 for the latent graphs). */
export function positionsOf(feeds: Readonly<Record<string, Ort.Tensor>>): number {
  return feeds.text_ids?.dims[1] ?? 0;
}
