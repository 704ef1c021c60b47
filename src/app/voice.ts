/**
 * Composition for the on-device voice: the server's settings, the worker client, the sample.
 */
import { fetchPageConfig } from '../platform/apiClient';
import { TtsClient } from '../platform/ttsClient';
import { VoiceSample } from './voiceSample';

export async function createVoiceSample(): Promise<{ sample: VoiceSample; dispose: () => Promise<void> }> {
  const config = await fetchPageConfig();
  const client = new TtsClient();
  return { sample: new VoiceSample(client, config), dispose: () => client.dispose() };
}
