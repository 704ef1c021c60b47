import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { readTtsConfig, samplesPerFrame, latentChannels, utteranceLength } from '../../../common/voice/config';
import { checkGraph, CONTRACT, ModelContractError } from '../../../common/voice/contract';
import type { ReportedTensor } from '../../../common/voice/contract';
import { readVoiceStyle, VoiceStyleError, VOICES } from '../../../common/voice/style';
import { ttsJson, voiceJson } from '../../helpers/supertonicData';

describe('tts.json', () => {
  it('reads the real configuration of both versions', () => {
    for (const version of ['supertonic-3', 'supertonic-2'] as const) {
      const config = readTtsConfig(ttsJson(version));
      expect(config).toEqual({ sampleRateHz: 44_100, baseChunkSize: 512, chunkCompressFactor: 6, latentDim: 24 });
      expect(samplesPerFrame(config)).toBe(3072);
      expect(latentChannels(config)).toBe(144);
    }
  });

  it('refuses a configuration missing a field, naming it', () => {
    expect(() => readTtsConfig({ ae: { sample_rate: 44_100 } })).toThrow(OptionError);
    expect(() => readTtsConfig({ ae: { sample_rate: 44_100 } })).toThrow('tts.json ae.base_chunk_size is missing; it must be a whole number over 0.');
    expect(() => readTtsConfig(null)).toThrow(/ae.sample_rate/);
  });
});

describe('the length of an utterance', () => {
  const config = readTtsConfig(ttsJson('supertonic-3'));

  it('is floor(duration / speed × 44100) samples in ceil(samples / 3072) latent frames', () => {
    expect(utteranceLength(1.05, 1.05, config)).toEqual({ samples: 44_100, frames: 15 });
    expect(utteranceLength(2, 1, config)).toEqual({ samples: 88_200, frames: 29 });
    expect(utteranceLength(3072 / 44_100, 1, config)).toEqual({ samples: 3072, frames: 1 });
  });

  it('shortens as the speed rises', () => {
    expect(utteranceLength(3, 1.5, config).samples).toBe(88_200);
  });

  it('is nothing for a non-positive or broken duration', () => {
    expect(utteranceLength(0, 1, config)).toEqual({ samples: 0, frames: 0 });
    expect(utteranceLength(-1, 1, config)).toEqual({ samples: 0, frames: 0 });
    expect(utteranceLength(Number.NaN, 1, config)).toEqual({ samples: 0, frames: 0 });
  });

  it('refuses a speed outside 0.5–2', () => {
    expect(() => utteranceLength(1, 3, config)).toThrow('speed is 3; it must be a number from 0.5 to 2.');
    expect(() => utteranceLength(1, Number.NaN, config)).toThrow(OptionError);
  });
});

describe('voices', () => {
  it('reads every preset voice of both versions into tensors of the contract’s sizes', () => {
    for (const version of ['supertonic-3', 'supertonic-2'] as const) {
      for (const voice of VOICES) {
        const style = readVoiceStyle(voiceJson(version, voice), voice);
        expect(style.ttl.length).toBe(50 * 256);
        expect(style.dp.length).toBe(8 * 16);
      }
    }
  });

  it('refuses a voice file of the wrong shape, naming the voice and the field', () => {
    expect(() => readVoiceStyle({ style_ttl: { dims: [1, 50, 128], data: [] } }, 'X1')).toThrow(VoiceStyleError);
    expect(() => readVoiceStyle({ style_ttl: { dims: [1, 50, 128], data: [] } }, 'X1')).toThrow('Voice X1: style_ttl.dims must be [1, 50, 256]');
    expect(() => readVoiceStyle({ style_ttl: { dims: [1, 50, 256], data: [[[1]]] } }, 'X2')).toThrow('Voice X2: style_ttl.data must hold 12800 finite numbers');
  });
});

describe('the model contract', () => {
  const reported = (graph: keyof typeof CONTRACT): { inputs: ReportedTensor[]; outputs: ReportedTensor[] } => ({
    inputs: CONTRACT[graph].inputs.map((s) => ({ name: s.name, type: s.type, shape: s.dims.map((d) => (typeof d === 'number' ? d : `dim_${d}`)) })),
    outputs: CONTRACT[graph].outputs.map((s) => ({ name: s.name, type: s.type, shape: s.dims })),
  });

  it('accepts a graph with the contract’s names, types and fixed dims, whatever its symbolic dims are called', () => {
    expect(() => { checkGraph('vector_estimator', 'onnx/vector_estimator.onnx', reported('vector_estimator')); }).not.toThrow();
  });

  it('refuses a wrong element type or fixed dimension, naming the file and the difference', () => {
    const wrong = reported('duration_predictor');
    wrong.inputs[0] = { name: 'text_ids', type: 'int32', shape: ['B', 'T'] };
    wrong.inputs[1] = { name: 'style_dp', type: 'float32', shape: ['B', 8, 32] };
    expect(() => { checkGraph('duration_predictor', 'dp.onnx', wrong); }).toThrow(ModelContractError);
    expect(() => { checkGraph('duration_predictor', 'dp.onnx', wrong); }).toThrow(
      'dp.onnx is not a Supertonic duration_predictor: input "text_ids" is int32, not int64; input "style_dp" has dims [B, 8, 32], not [B, 8, 16].',
    );
  });

  it('refuses a missing output', () => {
    expect(() => { checkGraph('vocoder', 'v.onnx', { inputs: reported('vocoder').inputs, outputs: [] }); }).toThrow('output "wav_tts" is missing');
  });
});
