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

/** The gestures browsers accept for starting audio. */
const GESTURES = ['pointerdown', 'touchend', 'keydown'] as const;

/**
 * Makes (or resumes) the context on every gesture on `target` until the returned function is
 * called, and calls `onReady` the first time it is running — so a greeting waits for a tap rather
 * than being lost to the autoplay policy.
 */
export function unlockAudioOnGesture(target: EventTarget, onReady: (context: AudioContext) => void = () => undefined): () => void {
  let ready = false;
  const unlock = () => {
    const context = audioContextInGesture();
    if (ready) return;
    const announce = () => {
      if (ready || context.state !== 'running') return;
      ready = true;
      onReady(context);
    };
    if (context.state === 'running') announce();
    else context.addEventListener('statechange', announce);
  };
  for (const gesture of GESTURES) target.addEventListener(gesture, unlock, { capture: true });
  return () => {
    for (const gesture of GESTURES) target.removeEventListener(gesture, unlock, { capture: true });
  };
}
