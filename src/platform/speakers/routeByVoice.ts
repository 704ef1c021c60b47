/**
 * Both voices behind the one `Speaker` face the app hands the conversation machine: each piece goes
 * to the voice its request names (the bot file's `voice.by`, via the machine), and cancelling an
 * utterance cancels it in both.
 *
 * Where the fallback lives. When the endpoint fails, the machine is told (`speaker.failed`, voice
 * `endpoint`) and it alone re-speaks the unheard pieces with `voice: 'device'` and stays on the device
 * for that conversation — it knows which pieces were heard, so re-voicing here as well would say them
 * twice. This router keeps the other half of the promise, that the page stays on the device voice for
 * its whole life without asking the dead endpoint again: a piece asking for the endpoint after it
 * died (a new conversation whose machine starts from the bot file again) goes straight to the device
 * voice, with no request and no second failure.
 *
 * Failures are reported synchronously, and the app must pass them to the machine synchronously
 * (`speaker.onFailed((f) => actor.send(…))`): the machine then switches to the device voice before
 * any further piece of that utterance is asked for, so no piece is both re-spoken by the machine and
 * sent on to the device here.
 */
import type { EndpointSpeaker } from './endpointSpeaker';
import { failureListeners } from './speaker';
import type { Speaker } from './speaker';

export interface Voices {
  device: Speaker;
  endpoint: EndpointSpeaker;
}

export function routeByVoice({ device, endpoint }: Voices): Speaker {
  const failures = failureListeners();
  const unsubscribe = [device.onFailed(failures.report), endpoint.onFailed(failures.report)];

  return {
    speak(request) {
      if (request.voice === 'endpoint' && !endpoint.dead) endpoint.speak(request);
      else device.speak({ ...request, voice: 'device' });
    },
    cancel(utteranceId) {
      endpoint.cancel(utteranceId);
      device.cancel(utteranceId);
    },
    onFailed: failures.add,
    dispose() {
      for (const stop of unsubscribe) stop();
      failures.clear();
      endpoint.dispose();
      device.dispose();
    },
  };
}
