/**
 * Take it with you and Forget me, against a walk of the database itself: every table with a `person`
 * column, and every table that reaches one through a foreign key, read from the catalogue. The export
 * has a section for each (a table added later without one fails here), holds a row of the person's
 * in each and none of anybody else's, and no secret; Forget me leaves no row of the person in any of
 * them and every row of another person's where it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FILE_NAME } from '../../../common/people';
import { parseBotFile } from '../../../server/bots';
import type { Bot } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import type { Queryable } from '../../../server/db/queryable';
import { startSession } from '../../../server/people/deviceSessions';
import { keepPerson } from '../../../server/people/people';
import { newSecret, sha256Hex } from '../../../server/people/secrets';
import { PERSON_COOKIE, SESSION_COOKIE } from '../../../server/person';
import { PERSON_TABLES } from '../../../server/yours/personTables';
import { openTestBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { requestRefusal } from '../../helpers/words';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';

const BOTS = new Map<string, Bot>([['sage', parseBotFile('sage.md', '---\nname: Sage\n---\nYou help.')]]);

/** What the catalogue says holds a person's rows: tables with a `person` column, and what reaches them by foreign keys. */
interface Walk {
  /** Every such table, by name, sorted. */
  tables: string[];
  /** Those without a `person` column, with the one-column key that reaches a table that has one. */
  reached: { table: string; column: string; parent: string; parentColumn: string }[];
}

async function walk(db: Database): Promise<Walk> {
  return db.asServer(async (tx) => {
    const own = (await tx.query<{ table_name: string }>("select table_name from information_schema.columns where table_schema = current_schema() and column_name = 'person'")).rows.map((row) => row.table_name);
    const keys = (
      await tx.query<{ child: string; parent: string; column: string | null; parent_column: string | null }>(
        `select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent,
                case when array_length(c.conkey, 1) = 1 then a.attname end as column,
                case when array_length(c.confkey, 1) = 1 then pa.attname end as parent_column
           from pg_constraint c
           join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
           join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1]
          where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`,
      )
    ).rows;
    const tables = new Set(own);
    const reached: Walk['reached'] = [];
    for (let grew = true; grew; ) {
      grew = false;
      for (const key of keys) {
        if (!tables.has(key.parent) || tables.has(key.child)) continue;
        tables.add(key.child);
        grew = true;
        if (key.column === null || key.parent_column === null || !own.includes(key.parent)) throw new Error(`${key.child} reaches a person through a key this walk cannot follow; teach it.`);
        reached.push({ table: key.child, column: key.column, parent: key.parent, parentColumn: key.parent_column });
      }
    }
    return { tables: [...tables].sort(), reached };
  });
}

/**
 * One row of `person`'s in every table, written as the server would hold it; `tag` marks what they
 * said. A table the walk finds and this does not seed fails the test until it is added here.
 */
const SEEDS: Record<string, (tx: Queryable, person: string, tag: string) => Promise<unknown>> = {
  people: (tx, person) => tx.query('insert into people (person) values ($1) on conflict do nothing', [person]),
  passkeys: (tx, person, tag) => tx.query("insert into passkeys (id, person, public_key, device_type, label) values ('cred-' || $2, $1, decode('c0ffee' || md5($2), 'hex'), 'multiDevice', 'Pixel 9')", [person, tag]),
  device_sessions: (tx, person, tag) => tx.query("insert into device_sessions (person, secret_hash, via, label) values ($1, encode(sha256(convert_to('session ' || $2, 'UTF8')), 'hex'), 'link', 'Safari on iPad')", [person, tag]),
  link_codes: (tx, person, tag) => tx.query("insert into link_codes (person, code_hash, expires_at) values ($1, encode(sha256(convert_to('code ' || $2, 'UTF8')), 'hex'), now() + interval '5 minutes')", [person, tag]),
  name_invites: (tx, person, tag) => tx.query("insert into name_invites (made_by, token_hash, name, expires_at) values ($1, encode(sha256(convert_to('invite ' || $2, 'UTF8')), 'hex'), 'friend-' || $2, now() + interval '1 day')", [person, tag]),
  webauthn_challenges: (tx, person, tag) => tx.query("insert into webauthn_challenges (challenge, purpose, person, expires_at) values ('challenge-' || $2, 'register', $1, now() + interval '1 minute')", [person, tag]),
  threads: (tx, person) => tx.query("insert into threads (person, bot) values ($1, 'sage')", [person]),
  lines: (tx, person, tag) => tx.query("insert into lines (thread_id, person, who, text, client_id) select id, $1, 'person', 'my garden, ' || $2, 'line-' || $2 from threads where person = $1", [person, tag]),
  choices: async (tx, person, tag) => {
    const offer = await tx.query<{ id: string }>(
      `insert into lines (thread_id, person, who, text, client_id, choices) select id, $1, 'assistant', 'Which list?', 'offer-' || $2, '{"question":"Which list?","items":["Shopping","To-do"]}' from threads where person = $1 returning id`,
      [person, tag],
    );
    return tx.query("insert into choices (line_id, person, choice, via) values ($1, $2, 0, 'press')", [offer.rows[0]?.id, person]);
  },
  memories: (tx, person, tag) => tx.query("insert into memories (person, bot, text, embedder, embedding, dimensions) values ($1, 'sage', 'likes green tea, ' || $2, 'walk', '[1,0,0]', 3)", [person, tag]),
  forgotten: (tx, person, tag) => tx.query("insert into forgotten (person, bot, digest) values ($1, 'sage', sha256(convert_to($2, 'UTF8')))", [person, tag]),
  forgotten_phrases: (tx, person, tag) => tx.query("insert into forgotten_phrases (person, bot, words, digest) values ($1, 'sage', 2, sha256(convert_to('phrase ' || $2, 'UTF8')))", [person, tag]),
  forgotten_lines: (tx, person) => tx.query('insert into forgotten_lines (person, line) select $1, id from lines where person = $1', [person]),
  turn_forgets: (tx, person, tag) => tx.query("insert into turn_forgets (person, turn_key, memory) select $1, 'turn-' || $2, id from memories where person = $1", [person, tag]),
  list_items: (tx, person, tag) => tx.query("insert into list_items (person, list, item, item_key) values ($1, 'shopping', 'oat milk ' || $2, 'oat milk ' || $2)", [person, tag]),
  notices: (tx, person, tag) => tx.query("insert into notices (person, bot, app, text, due_at) values ($1, 'sage', 'reminders', 'call mum, ' || $2, now())", [person, tag]),
  schedules: (tx, person, tag) => tx.query(`insert into schedules (person, bot, asked, said, recurrence) values ($1, 'sage', 'water the plants, ' || $2, 'every day at 08:00', '{"every":"day","zone":"UTC"}')`, [person, tag]),
  runs: (tx, person, tag) => tx.query("insert into runs (person, bot, asked, max_steps, max_spend_usd, max_minutes) values ($1, 'sage', 'go through my list, ' || $2, 10, 0.2, 10)", [person, tag]),
  run_steps: (tx, person, tag) => tx.query("insert into run_steps (run, seq, kind, body) select id, 1, 'say', jsonb_build_object('text', 'done, ' || $2::text) from runs where person = $1", [person, tag]),
  pending_actions: (tx, person, tag) => tx.query("insert into pending_actions (person, bot, verb, input, question, expires_at) values ($1, 'sage', 'lists.clear', '{}', 'Clear it, ' || $2 || '?', now() + interval '1 minute')", [person, tag]),
  verb_calls: (tx, person, tag) => tx.query("insert into verb_calls (person, bot, verb, app, input_digest, output) values ($1, 'sage', 'lists.add', 'lists', md5($2), jsonb_build_object('said', $2::text))", [person, tag]),
  turn_steps: (tx, person, tag) => tx.query("insert into turn_steps (person, turn_key, step, text, tool_calls, created_at) values ($1, 'turn-' || $2, 1, 'thinking, ' || $2, '[]', now())", [person, tag]),
  mcp_tokens: (tx, person, tag) => tx.query("insert into mcp_tokens (person, name, token_hash, bots) values ($1, 'laptop ' || $2, encode(sha256(convert_to('token ' || $2, 'UTF8')), 'hex'), '{sage}')", [person, tag]),
  presence_seats: (tx, person) => tx.query("insert into presence_seats (person, bot) values ($1, 'sage')", [person]),
  presence_pages: (tx, person, tag) => tx.query("insert into presence_pages (person, bot, page, device, seen_at) values ($1, 'sage', 'page-' || $2, 'device-' || $2, now())", [person, tag]),
  presence_events: (tx, person, tag) => tx.query("insert into presence_events (person, bot, seq, body) values ($1, 'sage', 1, jsonb_build_object('said', $2::text))", [person, tag]),
  presence_checkpoints: (tx, person, tag) => tx.query("insert into presence_checkpoints (person, bot, conversation, summary) values ($1, 'sage', 'conv-' || $2, 'talked of gardens, ' || $2)", [person, tag]),
  persons_seen: (tx, person) => tx.query('insert into persons_seen (person, seen_at) values ($1, now())', [person]),
  reservations: (tx, person) => tx.query("insert into reservations (person, bot, reserved_at, hold, answers) values ($1, 'sage', now(), 0, 1)", [person]),
  usage: (tx, person) => tx.query("insert into usage (reservation_id, person, bot, provider, model, prompt_tokens, completion_tokens, cost, started_at) select id, $1, 'sage', 'openai', 'm', 10, 20, 0.001, now() from reservations where person = $1", [person]),
  tallies: (tx, person) => tx.query("insert into tallies (person, bot, grain, starts_at, answers, spent) values ($1, 'sage', 'day', date_trunc('day', now()), 1, 0.001)", [person]),
};

const ANA = 'ana-walked';
const BOB = 'bob-walked';

describe('everything a person has, by a walk of every table that holds it', { timeout: DB_TEST_MS }, () => {
  let backend: TestBackend;
  let db: Database;
  let walked: Walk;
  let cookie = '';
  /** Ana's own signed-in device, beside her seeded one. */
  let secret = '';

  /** How many of `person`'s rows each walked table holds, found from the catalogue's walk alone (`reachedKeys`: a child's keys, taken before a forget). */
  const countsOf = async (person: string, reachedKeys: Record<string, unknown[]>) =>
    db.asServer(async (tx) => {
      const counts: Record<string, number> = {};
      for (const table of walked.tables) {
        const reach = walked.reached.find((r) => r.table === table);
        const { rows } =
          reach === undefined
            ? await tx.query<{ n: number }>(`select count(*)::int as n from ${table} where person = $1`, [person])
            : await tx.query<{ n: number }>(`select count(*)::int as n from ${table} where ${reach.column}::text = any($1::text[])`, [(reachedKeys[table] ?? []).map(String)]);
        counts[table] = rows[0]?.n ?? 0;
      }
      return counts;
    });
  /** The keys by which each reached table's rows are `person`'s, read now. */
  const reachedKeysOf = (person: string) =>
    db.asServer(async (tx) => {
      const keys: Record<string, unknown[]> = {};
      for (const reach of walked.reached) {
        keys[reach.table] = (await tx.query<{ key: unknown }>(`select ${reach.parentColumn}::text as key from ${reach.parent} where person = $1`, [person])).rows.map((row) => row.key);
      }
      return keys;
    });

  beforeAll(async () => {
    backend = await openTestBackend({ bots: BOTS });
    db = backend.db;
    walked = await walk(db);
    secret = newSecret();
    await db.asServer(async (tx) => {
      await tx.query("insert into embedders (name, dimensions) values ('walk', 3)");
      await keepPerson(tx, ANA);
      await startSession(tx, { person: ANA, secretHash: sha256Hex(secret), via: 'passkey', label: 'Firefox on Linux', nowMs: Date.now() });
      for (const [person, tag] of [[ANA, 'anatag'], [BOB, 'bobtag']] as const) {
        for (const { table } of PERSON_TABLES) await SEEDS[table]?.(tx, person, tag);
      }
    });
    cookie = `${SESSION_COOKIE}=${secret}.${String(Math.floor(Date.now() / 1000))}`;
  }, OPENING_MS);
  afterAll(async () => {
    await backend.close();
  });

  it('finds every table that holds a person’s rows in the one list export and forget walk, and seeds each', () => {
    expect(PERSON_TABLES.map((t) => t.table).sort()).toEqual(walked.tables);
    expect(Object.keys(SEEDS).sort()).toEqual(walked.tables);
    expect(walked.reached.map((r) => r.table).sort()).toEqual(['name_invites', 'run_steps']);
  });

  it('downloads one JSON file with a section for every table, each holding the person’s rows and nobody else’s, and no secret', async () => {
    const res = await backend.request('/api/me/export', { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${EXPORT_FILE_NAME}"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const everything = JSON.parse(text) as { person: string; tables: Record<string, unknown[]> };
    expect(everything.person).toBe(ANA);
    expect(Object.keys(everything.tables).sort()).toEqual(walked.tables);
    const counts = await countsOf(ANA, await reachedKeysOf(ANA));
    for (const table of walked.tables) expect(everything.tables[table], table).toHaveLength(counts[table] ?? -1);
    for (const table of walked.tables) expect(counts[table], table).toBeGreaterThan(0);
    // What they said and kept, with its words; never another person's.
    for (const said of ['my garden, anatag', 'likes green tea, anatag', 'oat milk anatag', 'water the plants, anatag', 'laptop anatag', 'Pixel 9', 'Firefox on Linux']) expect(text).toContain(said);
    expect(text).not.toContain('bobtag');
    expect(text).not.toContain(BOB);
    // Never a key, a secret's hash, a challenge or an embedding.
    const secrets = await db.asServer(async (tx) => {
      const one = async (sql: string) => (await tx.query<{ s: string }>(sql, [ANA])).rows.map((row) => row.s);
      return [
        ...(await one('select secret_hash as s from device_sessions where person = $1')),
        ...(await one('select token_hash as s from mcp_tokens where person = $1')),
        ...(await one('select code_hash as s from link_codes where person = $1')),
        ...(await one('select token_hash as s from name_invites where made_by = $1')),
        ...(await one('select challenge as s from webauthn_challenges where person = $1')),
        ...(await one("select encode(public_key, 'hex') as s from passkeys where person = $1")),
        ...(await one('select id as s from passkeys where person = $1')),
      ];
    });
    expect(secrets).toHaveLength(8);
    for (const kept of secrets) expect(text).not.toContain(kept);
    expect(text).not.toContain('embedding');
  });

  it('forgets nothing until the bot’s name is typed as it is shown', async () => {
    const before = await countsOf(ANA, await reachedKeysOf(ANA));
    const res = await backend.request('/api/me/forget', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'sage', confirm: 'Sag' }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: requestRefusal('yours.forget-typed', { bot: 'Sage' }) });
    expect(await countsOf(ANA, await reachedKeysOf(ANA))).toEqual(before);
  });

  it('forgets every row of the person in every table, passkeys and devices included, clears both cookies, and leaves another’s untouched', async () => {
    const anaKeys = await reachedKeysOf(ANA);
    const bobKeys = await reachedKeysOf(BOB);
    const bobBefore = await countsOf(BOB, bobKeys);
    const res = await backend.request('/api/me/forget', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'sage', confirm: '  sAGE ' }) });
    expect(res.status).toBe(204);
    const cleared = res.headers.getSetCookie();
    for (const name of [PERSON_COOKIE, SESSION_COOKIE]) expect(cleared.find((set) => set.startsWith(`${name}=`)), name).toMatch(/Max-Age=0/);
    const after = await countsOf(ANA, anaKeys);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(await countsOf(BOB, bobKeys)).toEqual(bobBefore);
    // The owner is gone: the server has none until the next passkey person.
    expect((await db.asServer((tx) => tx.query('select person from people where owner'))).rows).toEqual([]);
    // The device is nobody's now: its next request is a new person, with nothing.
    const next = await backend.request('/api/me/export', { headers: { cookie } });
    const fresh = (await next.json()) as { person: string; tables: Record<string, unknown[]> };
    expect(fresh.person).not.toBe(ANA);
    expect(Object.values(fresh.tables).every((rows) => rows.length === 0)).toBe(true);
  });
});
