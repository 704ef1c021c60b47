/**
 * Everything one load needs from the manifest: the four graphs, the config, the character table
 * and the voices asked for, fetched (or read from cache) and verified by `weights.ts`, then parsed.
 */
import type { LoadProgress, LoadRequest } from '../common/voice/api';
import { GRAPHS } from '../common/voice/contract';
import type { GraphName } from '../common/voice/contract';
import { fileUrl, ModelManifestError } from '../common/voice/manifest';
import type { Manifest, ModelFile, ModelSource } from '../common/voice/manifest';
import { fetchModelFile, fetchModelFiles } from './weights';
import type { LoadedModelFile, WeightsDeps } from './weights';
import type { LoadedFiles } from './ttsService';

const CONFIG = 'onnx/tts.json';
const INDEXER = 'onnx/unicode_indexer.json';

function sourceOf(manifest: Manifest, request: LoadRequest): ModelSource {
  return manifest.versions[request.version];
}

function fileOf(source: ModelSource, path: string): ModelFile {
  const file = source.files.find((f) => f.path === path);
  if (!file) throw new ModelManifestError(`models/manifest.json lists no ${path} for ${source.version}.`);
  return file;
}

const voicePath = (voice: string) => `voice_styles/${voice}.json`;

function json(file: LoadedModelFile): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(file.bytes)) as unknown;
  } catch (cause) {
    throw new ModelManifestError(`${file.path} from ${file.url} is not JSON, although it matched its pin.`, { cause });
  }
}

/** Fetches, verifies and parses what `request` needs, reporting progress across every file. */
export async function fetchLoad(
  manifest: Manifest,
  request: LoadRequest,
  onProgress: (progress: LoadProgress) => void,
  deps: Omit<WeightsDeps, 'onProgress' | 'onFileProgress'>,
): Promise<LoadedFiles> {
  const source = sourceOf(manifest, request);
  const paths = [...GRAPHS.map((g) => `onnx/${g}.onnx`), CONFIG, INDEXER, ...request.voices.map(voicePath)];
  let current = paths[0] ?? '';
  const loaded = await fetchModelFiles(
    paths.map((p) => fileOf(source, p)),
    (file) => fileUrl(request.base, source, file),
    {
      ...deps,
      onFileProgress: (p) => {
        current = p.path;
      },
      onProgress: (p) => {
        onProgress({ bytesDone: p.bytesDone, bytesTotal: p.bytesTotal, file: current });
      },
    },
  );
  const get = (path: string): LoadedModelFile => {
    const file = loaded.get(path);
    if (!file) throw new ModelManifestError(`${path} was not delivered.`);
    return file;
  };
  const graphs = Object.fromEntries(GRAPHS.map((g) => [g, get(`onnx/${g}.onnx`).bytes])) as Record<GraphName, Uint8Array>;
  return {
    files: { version: request.version, graphs, config: json(get(CONFIG)), indexer: json(get(INDEXER)) as number[] },
    voices: Object.fromEntries(request.voices.map((v) => [v, json(get(voicePath(v)))])),
    unverified: [...loaded.values()].filter((f) => !f.verified).map((f) => f.path),
  };
}

/** Fetches one more voice of a loaded version. */
export async function fetchVoiceFile(
  manifest: Manifest,
  request: LoadRequest,
  voice: string,
  deps: Omit<WeightsDeps, 'onProgress' | 'onFileProgress'>,
): Promise<unknown> {
  const source = sourceOf(manifest, request);
  const file = fileOf(source, voicePath(voice));
  return json(await fetchModelFile(file, fileUrl(request.base, source, file), deps));
}
