import { describe, expect, it } from 'vitest';
import { ModelContractError } from '../../common/voice/contract';
import { ModelDownloadError, ModelFileError, ModelManifestError } from '../../common/voice/manifest';
import { VoiceStyleError } from '../../common/voice/style';
import { OptionError } from '../../common/options';
import { EngineError } from '../../workers/supertonic';
import { whyLoadFailed } from '../../workers/whyLoadFailed';

const url = 'https://huggingface.co/Supertone/supertonic-3/resolve/main/onnx/vocoder.onnx';
const answered = (status: number) => new ModelDownloadError(url, { status, statusText: '' });

describe('why a load failed', () => {
  it('tells a host that could not be reached from one that refused, was busy, or did not have the file', () => {
    expect(whyLoadFailed(new ModelDownloadError(url, null, 'Check the connection.', { cause: new TypeError('fetch failed') }))).toBe('unreachable');
    expect(whyLoadFailed(answered(401))).toBe('refused');
    expect(whyLoadFailed(answered(403))).toBe('refused');
    expect(whyLoadFailed(answered(429))).toBe('busy');
    expect(whyLoadFailed(answered(503))).toBe('busy');
    expect(whyLoadFailed(answered(404))).toBe('missing');
    expect(whyLoadFailed(answered(418))).toBe('missing');
    expect(whyLoadFailed(new ModelManifestError('models/manifest.json lists no onnx/tts.json for supertonic-3.'))).toBe('missing');
  });

  it('takes files that came but are not the model for damaged, a runtime that could not start it for unsupported, and anything else for failed', () => {
    expect(whyLoadFailed(new ModelFileError('onnx/vocoder.onnx', url, { field: 'size', expected: 10, got: 5 }, 'Try again.'))).toBe('damaged');
    expect(whyLoadFailed(new ModelContractError('onnx/vocoder.onnx is not a Supertonic vocoder.'))).toBe('damaged');
    expect(whyLoadFailed(new VoiceStyleError('Voice F1: style_ttl.dims must be [1, 50, 256].'))).toBe('damaged');
    expect(whyLoadFailed(new OptionError('tts.json ae.sample_rate', undefined, 'a whole number over 0'))).toBe('damaged');
    expect(whyLoadFailed(new EngineError('The voice model could not start on webgpu or wasm.'))).toBe('unsupported');
    expect(whyLoadFailed(new TypeError('Failed to fetch dynamically imported module'))).toBe('failed');
    expect(whyLoadFailed('not an error')).toBe('failed');
  });
});
