/**
 * A typed event emitter: each event name carries one kind of value (`undefined` for none). Listeners
 * are called in the order they were added; one removed while an event is being emitted is not
 * called for it if it had not been yet.
 */

/** The arguments an event's listener takes: none for an `undefined` event, else its one value. */
type EventArgs<T> = [T] extends [undefined] ? [] : [T];

export interface Emitter<Events> {
  /** Hears `event` from now on; answers a way to stop hearing it. */
  on<K extends keyof Events>(event: K, listener: (...value: EventArgs<Events[K]>) => void): () => void;
  emit<K extends keyof Events>(event: K, ...value: EventArgs<Events[K]>): void;
  /** Forgets every listener of every event. */
  clear(): void;
}

/** A listener as the emitter keeps it: `on` and `emit` type it per event. */
type Listener = (...value: unknown[]) => void;

export function createEmitter<Events>(): Emitter<Events> {
  const listeners = new Map<keyof Events, Set<Listener>>();
  return {
    on(event, typed) {
      const listener = typed as Listener;
      let heard = listeners.get(event);
      if (heard === undefined) {
        heard = new Set();
        listeners.set(event, heard);
      }
      heard.add(listener);
      return () => {
        heard.delete(listener);
      };
    },
    emit(event, ...value) {
      const heard = listeners.get(event);
      if (heard === undefined) return;
      for (const listener of heard) listener(...value);
    },
    clear() {
      listeners.clear();
    },
  };
}
