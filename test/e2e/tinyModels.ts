/**
 * Lays out a model mirror for browser tests: the tiny stand-in graphs under Supertonic 3's onnx
 * names, beside the real config, character table and voices from ../shared/supertonic.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GRAPHS } from '../../common/voice/contract';
import { VOICES } from '../../common/voice/style';
import { SHARED_SUPERTONIC } from '../helpers/supertonicData';
import { buildTinyGraphs } from '../helpers/tinySupertonic';

/** `E2E_MODELS` moves it, so two runs can go side by side. */
export const E2E_MODELS_DIR = process.env.E2E_MODELS ?? resolve(import.meta.dirname, '..', '..', 'e2e-build', 'models');

export default function globalSetup(): void {
  layTinyModels(E2E_MODELS_DIR);
}

/** Lays the mirror out in `dir`, emptied first (the browser tests' set-up, and the turn benchmark's). */
export function layTinyModels(dir: string): void {
  const version = 'supertonic-3';
  const root = join(dir, version);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(root, 'onnx'), { recursive: true });
  mkdirSync(join(root, 'voice_styles'), { recursive: true });
  const graphs = buildTinyGraphs();
  for (const graph of GRAPHS) writeFileSync(join(root, 'onnx', `${graph}.onnx`), graphs[graph]);
  for (const file of ['onnx/tts.json', 'onnx/unicode_indexer.json', ...VOICES.map((v) => `voice_styles/${v}.json`)]) {
    copyFileSync(join(SHARED_SUPERTONIC, version, file), join(root, file));
  }
}
