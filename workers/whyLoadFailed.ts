/**
 * The kind of a failed load (`common/voice/loadFailure.ts`), read from the worker's own errors while
 * they still carry their class and status — comlink would keep only a name and a message.
 */
import type { LoadFailure } from '../common/voice/loadFailure';
import { ModelContractError } from '../common/voice/contract';
import { ModelDownloadError, ModelFileError, ModelManifestError } from '../common/voice/manifest';
import { VoiceStyleError } from '../common/voice/style';
import { OptionError } from '../common/options';
import { EngineError } from './supertonic';

export function whyLoadFailed(error: unknown): LoadFailure {
  if (error instanceof ModelDownloadError) {
    const { status } = error;
    if (status === null) return 'unreachable';
    if (status === 401 || status === 403) return 'refused';
    if (status === 429 || status >= 500) return 'busy';
    return 'missing';
  }
  // The site's manifest names no such file, or one that cannot be the model's: its operator's to mend.
  if (error instanceof ModelManifestError) return 'missing';
  // tts.json is read with the options reader, so a file of the wrong shape is its OptionError.
  if (error instanceof ModelFileError || error instanceof ModelContractError || error instanceof VoiceStyleError || error instanceof OptionError) return 'damaged';
  if (error instanceof EngineError) return 'unsupported';
  return 'failed';
}
