/**
 * The real Supertonic configuration, character tables and voices from `../shared/supertonic`
 * (data for tests only; Confab never commits it). Without that folder the tests cannot check the
 * engine against the real model's tables, and they say so rather than pass on made-up data.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ModelVersion } from '../../common/voice/text';

export const SHARED_SUPERTONIC = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'supertonic');

function read(version: ModelVersion, path: string): unknown {
  const file = join(SHARED_SUPERTONIC, version, path);
  if (!existsSync(file)) {
    throw new Error(
      `${file} is missing. These tests read the real Supertonic config, character table and voices from ../shared/supertonic beside the repository; put that folder there to run them.`,
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

export function ttsJson(version: ModelVersion): unknown {
  return read(version, 'onnx/tts.json');
}

export function indexer(version: ModelVersion): number[] {
  return read(version, 'onnx/unicode_indexer.json') as number[];
}

export function voiceJson(version: ModelVersion, voice: string): unknown {
  return read(version, `voice_styles/${voice}.json`);
}
