/**
 * What a settings view does with each thing a person asks of its API: busy while it runs, so a
 * button is not pressed twice, and the server's sentence shown when it is refused.
 */
import { ref } from 'vue';

/** The sentence an error carries (the API client's errors are the server's own sentences). */
export function problemOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function useAttempt() {
  const busy = ref(false);
  const problem = ref('');
  async function attempt(work: () => Promise<void>): Promise<void> {
    busy.value = true;
    problem.value = '';
    try {
      await work();
    } catch (error) {
      problem.value = problemOf(error);
    } finally {
      busy.value = false;
    }
  }
  return { busy, problem, attempt };
}
