/**
 * The page's one AudioContext. Browsers (Safari and iOS above all) only let audio start from a
 * context created or resumed inside a user gesture; one resumed seconds after a tap stays silent.
 * So the context is made in the first gesture and every later gesture resumes it if the browser
 * suspended it (a phone call, a backgrounded tab).
 */

let shared: AudioContext | undefined;

/**
 * Creates the page's AudioContext, or resumes it when suspended. Call it inside a pointer, touch or
 * key handler: outside one the browser may keep it suspended until the next gesture.
 */
export function audioContextInGesture(): AudioContext {
  shared ??= new AudioContext({ latencyHint: 'interactive' });
  if (shared.state !== 'running' && shared.state !== 'closed') void shared.resume();
  return shared;
}

/** The page's AudioContext if a gesture has made it, else undefined (audio cannot start yet). */
export function existingAudioContext(): AudioContext | undefined {
  return shared;
}
