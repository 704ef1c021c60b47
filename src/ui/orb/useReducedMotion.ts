/**
 * Whether the orb should stay still: the person's `prefers-reduced-motion` setting, followed live
 * as it changes, unless the page overrides it.
 */
import { computed, onBeforeUnmount, onMounted, ref } from 'vue';
import type { ComputedRef } from 'vue';

/** The media query a person's "reduce motion" setting answers. */
const REDUCED_MOTION_QUERY = '(prefers-reduced-motion: reduce)';

/**
 * True while motion should be reduced: `override()` when it says so either way, the media query
 * otherwise. Call it in a component's setup; it stops listening when the component unmounts.
 */
export function useReducedMotion(override: () => boolean | undefined): ComputedRef<boolean> {
  const query = window.matchMedia(REDUCED_MOTION_QUERY);
  const prefersReduced = ref(query.matches);
  const follow = (event: MediaQueryListEvent) => {
    prefersReduced.value = event.matches;
  };
  onMounted(() => {
    query.addEventListener('change', follow);
  });
  onBeforeUnmount(() => {
    query.removeEventListener('change', follow);
  });
  return computed(() => override() ?? prefersReduced.value);
}
