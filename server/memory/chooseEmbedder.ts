/**
 * Which embedder the server recalls with, decided once at start. `auto` (the default) takes the best
 * that loads here: the `minilm` sentence model when its pinned files are in `.data/models/`, else the
 * `words` embedder (converting its word vectors on first start), else `hash`. Whatever is chosen,
 * and why a better one was not, is said once in the log and in `GET /api/health`.
 */
import { join } from 'node:path';
import type { BackendConfig } from '../backendConfig';
import { endpointEmbedder, hashEmbedder } from './embed';
import type { Embedder } from './embed';
import { loadSentenceModel } from './miniLm';
import type { OrtModule, SentenceModel } from './miniLm';
import { wordEmbedder } from './wordEmbedder';
import { ensureWordVectors } from './wordVectors';
import type { WordVectorsSource } from './wordVectors';

/** What `GET /api/health` says of the embedder. */
export interface EmbedderStatus {
  name: string;
  /** True when recall finds remarks by meaning; false for the lexical `hash`. */
  meaning: boolean;
  /** Why a better embedder is not in use, when one is not. */
  why?: string;
}

export interface ChosenEmbedder {
  embedder: Embedder;
  status: EmbedderStatus;
}

export type EmbedderLog = (line: { event: string; [field: string]: unknown }) => void;

export interface ChooseOptions {
  /** The data folder (`CONFAB_DATA_DIR`): word vectors in `word-vectors/`, models in `models/`. */
  dataDir: string;
  log: EmbedderLog;
  /** For tests: another model spec or onnxruntime module, or another source of word vectors. */
  model?: SentenceModel;
  ort?: OrtModule;
  words?: WordVectorsSource;
}

export async function chooseEmbedder(setting: BackendConfig['embedder'], options: ChooseOptions): Promise<ChosenEmbedder> {
  const chosen = await choose(setting, options);
  options.log({ event: 'embedder.chosen', ...chosen.status });
  return chosen;
}

async function choose(setting: BackendConfig['embedder'], options: ChooseOptions): Promise<ChosenEmbedder> {
  if (setting.kind === 'hash') return { embedder: hashEmbedder, status: { name: hashEmbedder.name, meaning: false, why: 'CONFAB_EMBEDDER=hash' } };
  if (setting.kind === 'endpoint') {
    const embedder = endpointEmbedder(setting);
    return { embedder, status: { name: embedder.name, meaning: true } };
  }
  const reasons: string[] = [];
  if (setting.kind === 'auto' || setting.kind === 'minilm') {
    try {
      const embedder = await loadSentenceModel({
        modelsDir: join(options.dataDir, 'models'),
        ...(options.model ? { model: options.model } : {}),
        ...(options.ort ? { ort: options.ort } : {}),
      });
      return { embedder, status: { name: embedder.name, meaning: true } };
    } catch (error) {
      reasons.push(`the sentence model: ${(error as Error).message}`);
    }
  }
  if (setting.kind === 'auto' || setting.kind === 'words') {
    const loaded = await ensureWordVectors(options.dataDir, options.log, options.words);
    if ('vectors' in loaded) {
      const embedder = wordEmbedder(loaded.vectors);
      return { embedder, status: { name: embedder.name, meaning: true, ...(reasons.length > 0 ? { why: reasons.join('; ') } : {}) } };
    }
    reasons.push(`the word vectors: ${loaded.why}`);
  }
  return { embedder: hashEmbedder, status: { name: hashEmbedder.name, meaning: false, why: `fell back to hash (recall by shared words only): ${reasons.join('; ')}` } };
}
