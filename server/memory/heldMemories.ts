/**
 * A person's memories with a bot, held in this process so that recall — on the way to every
 * answer's first token — compares the question with each of them here instead of asking the
 * database: a hundred 384-wide memories compare in ~0.05 ms in JavaScript, where the statement took
 * 0.5 ms warm and 0.8 ms after the server had been idle (`npm run bench -- door`).
 *
 * The database stays the truth. What is held is read from it (`memoriesWithVectors`), the first time
 * a person's memories are recalled, and kept current by what the database says on
 * `MEMORIES_CHANNEL` as each change commits (migration 010): a memory forgotten is dropped at once;
 * one added is read at the next recall, unless this server kept it itself (`kept`), which hands it
 * over as its transaction ends. A change heard while memories are being read makes that read
 * unkept: it may predate the change. A break in listening (Postgres dropped the connection) forgets
 * everything held. On PGlite the server hears a change before the transaction that made it has
 * returned; on Postgres, another server's change is heard within milliseconds of its commit, and a
 * recall in between is answered from what was held, as a recall a moment earlier would have been.
 *
 * Not held: anyone with more than `EXACT_RECALL_MAX` memories with a bot (recall walks the index for
 * them), and anything at all without `Database.listen` (nothing would say what changed). Held in
 * all: at most `vectorsMax` vectors; the person recalled longest ago is let go first.
 *
 * Distances are the database's: cosine distance (1 − cos), computed from vectors scaled to length
 * one as they are read; the nearest `limit` are found first and the floor applied to them.
 */
import type { Database } from '../db/database';
import { checkedEmbedding, MEMORIES_CHANNEL, memoriesWithVectors, memoryChangeOf } from '../db/memories';
import type { Memory, MemoryChange, Recalled, RecallQuery } from '../db/memories';

/** Vectors held at most: 48 MiB at 384 wide. */
export const HELD_VECTORS_MAX = 32_768;

export interface HeldMemoriesOptions {
  /** Most memories of one person with one bot to hold (more are recalled through the index). */
  memoriesMax: number;
  /** Most vectors held in all. */
  vectorsMax?: number;
}

export interface HeldRecall {
  recalled: Recalled[];
  /** How many memories were compared: all the person has with the bot in that space. */
  compared: number;
}

export interface HeldMemories {
  /**
   * The recall, from the person's memories held here (read first when they are not); undefined
   * when they are not to be held — too many, no listening (yet), or a change came while they were
   * being read — and the caller asks the database instead.
   */
  recall(query: RecallQuery): Promise<HeldRecall | undefined>;
  /** A memory this server has just kept (its transaction has ended), with the vector it was given. */
  kept(person: string, memory: Memory, embedding: Float32Array | readonly number[]): void;
  /** What is held now. */
  readonly held: { owners: number; vectors: number };
  /** Stops listening and lets everything go. */
  close(): Promise<void>;
}

interface Held {
  readonly key: string;
  readonly owner: string;
  readonly width: number;
  /** Read and complete (but for `pending`); false while the first read is under way. */
  ready: boolean;
  memories: Memory[];
  /** Each memory's vector at length one, `width` numbers apiece, in `memories`' order. */
  vectors: Float32Array;
  /** Added (or changed) since the read, by id: read at the next recall. */
  pending: Set<string>;
  /** Counts every change heard; a read that began under another count is not kept. */
  changes: number;
}

const ownerOf = (person: string, bot: string) => `${person}\u0000${bot}`;
/** One person's memories with one bot in one embedder's space. */
const keyOf = (person: string, bot: string, embedder: string, width: number) => `${ownerOf(person, bot)}\u0000${embedder}\u0000${String(width)}`;

export function heldMemories(db: Pick<Database, 'readAsServer' | 'listen'>, options: HeldMemoriesOptions): HeldMemories {
  const vectorsMax = options.vectorsMax ?? HELD_VECTORS_MAX;
  /** By person, bot, embedder and width; the recalled longest ago first. */
  const entries = new Map<string, Held>();
  /** Each person and bot's entries (one per embedder space). */
  const byOwner = new Map<string, Set<Held>>();
  let vectorsHeld = 0;
  let listening: Promise<(() => Promise<void>) | undefined> | undefined;
  let heard = false;
  let closed = false;

  const drop = (entry: Held) => {
    if (entries.get(entry.key) !== entry) return;
    entries.delete(entry.key);
    vectorsHeld -= entry.memories.length;
    const set = byOwner.get(entry.owner);
    set?.delete(entry);
    if (set?.size === 0) byOwner.delete(entry.owner);
  };

  const forgetAll = () => {
    for (const entry of [...entries.values()]) drop(entry);
  };

  const changed = (change: MemoryChange) => {
    for (const entry of byOwner.get(ownerOf(change.person, change.bot)) ?? []) {
      const at = entry.memories.findIndex((memory) => memory.id === change.id);
      // One this server kept and has already handed over: nothing new.
      if (change.op === 'insert' && at >= 0) continue;
      entry.changes += 1;
      if (at >= 0) remove(entry, at);
      if (change.op === 'delete') entry.pending.delete(change.id);
      else entry.pending.add(change.id);
      if (entry.memories.length + entry.pending.size > options.memoriesMax) drop(entry);
    }
  };

  const listen = () => {
    if (listening !== undefined || db.listen === undefined) return;
    listening = db
      .listen(MEMORIES_CHANNEL, {
        payload: (payload) => {
          const change = memoryChangeOf(payload);
          if (change !== null) changed(change);
        },
        gap: forgetAll,
      })
      .then(
        (stop) => {
          heard = !closed;
          return stop;
        },
        () => undefined,
      );
  };

  function remove(entry: Held, at: number): void {
    const { width } = entry;
    entry.memories.splice(at, 1);
    entry.vectors.copyWithin(at * width, (at + 1) * width);
    entry.vectors = entry.vectors.subarray(0, entry.memories.length * width);
    vectorsHeld -= 1;
  }

  /** Adds those of `added` not held yet, growing the vectors once. */
  function add(entry: Held, added: readonly { memory: Memory; vector: Float32Array | readonly number[] }[]): void {
    const held = new Set(entry.memories.map((memory) => memory.id));
    const fresh = added.filter(({ memory }) => {
      if (held.has(memory.id)) return false;
      held.add(memory.id);
      return true;
    });
    const { width } = entry;
    const grown = new Float32Array((entry.memories.length + fresh.length) * width);
    grown.set(entry.vectors);
    for (const { memory, vector } of fresh) {
      grown.set(unit(vector, width), entry.memories.length * width);
      entry.memories.push(memory);
      entry.pending.delete(memory.id);
    }
    entry.vectors = grown;
    vectorsHeld += fresh.length;
  }

  /** Lets the person recalled longest ago go until `room` more vectors fit; false when they never can. */
  function makeRoom(room: number, keep: Held): boolean {
    if (room > vectorsMax) return false;
    for (const entry of entries.values()) {
      if (vectorsHeld + room <= vectorsMax) break;
      if (entry !== keep) drop(entry);
    }
    return vectorsHeld + room <= vectorsMax;
  }

  async function fill(entry: Held, person: string, query: RecallQuery): Promise<boolean> {
    const changes = entry.changes;
    const ids = entry.ready ? [...entry.pending] : undefined;
    const rows = await db.readAsServer((reader) =>
      memoriesWithVectors(reader, {
        person,
        bot: query.bot,
        embedder: query.embedder,
        width: entry.width,
        limit: options.memoriesMax + 1,
        ...(ids === undefined ? {} : { ids }),
      }),
    );
    // Let go, or changed again, while it was read: this read may predate what changed.
    if (entries.get(entry.key) !== entry || entry.changes !== changes) return false;
    if (ids !== undefined) for (const id of ids) entry.pending.delete(id);
    if (entry.memories.length + rows.length > options.memoriesMax || !makeRoom(rows.length, entry)) {
      drop(entry);
      return false;
    }
    add(entry, rows.map((row) => ({ memory: row, vector: row.vector })));
    entry.ready = true;
    return true;
  }

  return {
    async recall(query) {
      listen();
      if (!heard || closed) return undefined;
      const width = query.dimensions;
      if (width === undefined) return undefined;
      // A zero vector, or figures no recall takes, is the database's to refuse or answer.
      let comparable: boolean;
      try {
        comparable = checkedEmbedding(query.embedding, width);
      } catch {
        return undefined;
      }
      if (!comparable || !Number.isInteger(query.limit) || query.limit < 1 || !(query.maxDistance >= 0 && query.maxDistance <= 2)) return undefined;
      const key = keyOf(query.person, query.bot, query.embedder, width);
      let entry = entries.get(key);
      if (entry === undefined) {
        const owner = ownerOf(query.person, query.bot);
        entry = { key, owner, width, ready: false, memories: [], vectors: new Float32Array(0), pending: new Set(), changes: 0 };
        entries.set(key, entry);
        const set = byOwner.get(owner) ?? new Set<Held>();
        set.add(entry);
        byOwner.set(owner, set);
      } else {
        entries.delete(key);
        entries.set(key, entry);
      }
      if ((!entry.ready || entry.pending.size > 0) && !(await fill(entry, query.person, query))) return undefined;
      return { recalled: nearest(entry, unit(query.embedding, width), query), compared: entry.memories.length };
    },
    kept(person, memory, embedding) {
      const entry = entries.get(keyOf(person, memory.bot, memory.embedder, memory.dimensions));
      if (entry === undefined || !entry.ready) return;
      if (entry.memories.length + 1 > options.memoriesMax || !makeRoom(1, entry)) {
        drop(entry);
        return;
      }
      add(entry, [{ memory, vector: embedding }]);
    },
    get held() {
      return { owners: byOwner.size, vectors: vectorsHeld };
    },
    async close() {
      closed = true;
      forgetAll();
      const stop = await listening;
      await stop?.();
    },
  };
}

/** The leading `width` numbers of `vector`, scaled to length one (NaN throughout for a zero vector). */
function unit(vector: Float32Array | readonly number[], width: number): Float32Array {
  const out = new Float32Array(width);
  let sum = 0;
  for (let i = 0; i < width; i++) {
    const value = vector[i] ?? 0;
    out[i] = value;
    sum += value * value;
  }
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < width; i++) out[i] = (out[i] ?? 0) * scale;
  return out;
}

/** The nearest `limit` of the held memories, nearest first, then those within the floor. */
function nearest(entry: Held, query: Float32Array, { limit, maxDistance }: RecallQuery): Recalled[] {
  const { width, vectors, memories } = entry;
  const distances = new Float64Array(memories.length);
  for (let m = 0; m < memories.length; m++) {
    let dot = 0;
    const base = m * width;
    for (let i = 0; i < width; i++) dot += (query[i] ?? 0) * (vectors[base + i] ?? 0);
    distances[m] = 1 - dot;
  }
  // As Postgres orders float8: a NaN (a vector of zeros) after every number.
  const order = memories.map((_, m) => m).sort((a, b) => {
    const x = distances[a] ?? Number.NaN;
    const y = distances[b] ?? Number.NaN;
    if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
    if (Number.isNaN(y)) return -1;
    return x - y;
  });
  const recalled: Recalled[] = [];
  for (const m of order.slice(0, limit)) {
    const distance = distances[m] ?? Number.NaN;
    const memory = memories[m];
    if (memory !== undefined && distance <= maxDistance) recalled.push({ ...memory, distance });
  }
  return recalled;
}
