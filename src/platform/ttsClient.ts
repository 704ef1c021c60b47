/**
 * The page's handle on the on-device voice. The worker starts on first use (a page that never
 * speaks never pays for it), calls cross to it in order, progress comes back through a comlink
 * proxy, PCM comes back transferred rather than copied, and `dispose` terminates the worker and
 * with it the model's memory.
 */
import * as Comlink from 'comlink';
import type { LoadProgress, LoadRequest, LoadResult, SpeakRequest, SpokenPiece, TtsApi } from '../../common/voice/api';
import type { Language } from '../../common/voice/text';

/** Makes the worker; injectable so a test can count starts. */
export type WorkerFactory = () => Worker;

const defaultWorker: WorkerFactory = () =>
  new Worker(new URL('../../workers/tts.worker.ts', import.meta.url), { type: 'module', name: 'confab-voice' });

export class TtsClient implements TtsApi {
  private worker: Worker | null = null;
  private remote: Comlink.Remote<TtsApi> | null = null;
  private loading: Promise<LoadResult> | null = null;

  constructor(private readonly makeWorker: WorkerFactory = defaultWorker) {}

  private api(): Comlink.Remote<TtsApi> {
    if (!this.remote) {
      this.worker = this.makeWorker();
      this.remote = Comlink.wrap<TtsApi>(this.worker);
    }
    return this.remote;
  }

  /** Loads once; a second call while the first is under way shares it. */
  load(request: LoadRequest, onProgress: (progress: LoadProgress) => void): Promise<LoadResult> {
    this.loading ??= this.api()
      .load(request, Comlink.proxy(onProgress))
      .catch((error: unknown) => {
        this.loading = null;
        throw error;
      });
    return this.loading;
  }

  voices(): Promise<string[]> {
    return this.api().voices();
  }

  languages(): Promise<Language[]> {
    return this.api().languages();
  }

  speak(request: SpeakRequest): Promise<SpokenPiece | null> {
    return this.api().speak(request);
  }

  cancel(utteranceId: number): Promise<void> {
    return this.remote ? this.remote.cancel(utteranceId) : Promise.resolve();
  }

  async dispose(): Promise<void> {
    const remote = this.remote;
    const worker = this.worker;
    this.remote = null;
    this.worker = null;
    this.loading = null;
    if (!remote || !worker) return;
    try {
      await remote.dispose();
    } finally {
      remote[Comlink.releaseProxy]();
      worker.terminate();
    }
  }
}
