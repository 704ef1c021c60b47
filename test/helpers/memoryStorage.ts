/** A browser storage held in memory, for the page's stores and supabase-js in a test. */

/** localStorage's `getItem`, `setItem` and `removeItem`, with what it holds in view. */
export interface MemoryStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  /** What it holds, by key. */
  readonly items: Map<string, string>;
}

/** An empty storage of the test's own. */
export function memoryStorage(): MemoryStorage {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, value);
    },
    removeItem: (key) => {
      items.delete(key);
    },
  };
}
