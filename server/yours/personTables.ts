/**
 * Every table that holds something of a person's: each with a `person` column, and each that reaches
 * a person through another's row (a run's steps through its run, a name link through its maker). The
 * one list both "Take it with you" (`GET /api/me/export`) and "Forget me" (`POST /api/me/forget`)
 * walk, so neither can leave a table out; a test walks `information_schema` and fails on a table
 * that holds a person's rows and is not here.
 *
 * What the export shows of a row is chosen here, column by column: what the person said and kept,
 * names, labels and dates — never a secret's hash, a public key, a challenge or an embedding. Money is
 * US dollars as numbers; a sequence that outgrows a JSON number is text. Run these as the server
 * (`asServer`), `$1` being the person.
 */

export interface PersonTable {
  table: string;
  /** Which of its rows are the person's (`$1`), as a `where` condition. */
  whose: string;
  /** What the export gives of each row, as a `select` list. */
  shown: string;
  /** The order the export lists them in. */
  order: string;
}

const own = (table: string, shown: string, order: string): PersonTable => ({ table, whose: 'person = $1', shown, order });

/**
 * In the order a person would read them: who they are and their devices, then what they said and
 * kept, what works for them, and what it cost. Forgetting goes from the end back, so a row is gone
 * before the row it points to (`usage` before `reservations`, a run's steps before the run).
 */
export const PERSON_TABLES: readonly PersonTable[] = Object.freeze([
  own('people', 'person, name, owner, created_at', 'person'),
  own('passkeys', 'label, device_type, backed_up, transports, created_at, last_used_at', 'created_at'),
  own('device_sessions', 'label, via, created_at, seen_at', 'created_at'),
  own('link_codes', 'expires_at', 'expires_at'),
  { table: 'name_invites', whose: 'made_by = $1', shown: 'name, expires_at', order: 'expires_at' },
  own('webauthn_challenges', 'purpose, expires_at', 'expires_at'),
  own('threads', 'id, bot, created_at', 'created_at, id'),
  own('lines', 'id, thread_id, who, text, choices, client_id, interrupted, created_at', 'seq'),
  own('choices', 'line_id, choice, via, created_at', 'created_at, line_id'),
  own('memories', 'id, bot, text, created_at', 'seq'),
  own('forgotten', 'bot, forgotten_at', 'forgotten_at'),
  own('forgotten_phrases', 'bot, words, forgotten_at', 'forgotten_at'),
  own('forgotten_lines', 'line', 'line'),
  own('turn_forgets', 'turn_key, memory, created_at', 'created_at'),
  own('list_items', 'list, item, created_at', 'seq'),
  own('notices', 'id, bot, app, text, due_at, delivered_at, created_at', 'created_at, id'),
  own('schedules', 'id, bot, conversation, asked, said, recurrence, next_at, last_fired_at, state, language, created_at', 'created_at, id'),
  own(
    'runs',
    'id, bot, conversation, asked, state, answer, time_zone, language, schedule, max_steps, max_spend_usd::float8 as max_spend_usd, max_minutes, started_at, created_at, updated_at',
    'created_at, id',
  ),
  { table: 'run_steps', whose: 'run in (select id from runs where person = $1)', shown: 'run, seq, kind, body, spent_usd::float8 as spent_usd, created_at', order: 'run, seq' },
  own('pending_actions', 'id, bot, verb, input, question, state, time_zone, conversation, run, language, expires_at, created_at', 'created_at, id'),
  own('verb_calls', 'id, bot, verb, app, conversation, output, created_at', 'seq'),
  own('turn_steps', 'turn_key, step, text, tool_calls, created_at', 'created_at, turn_key, step'),
  own('mcp_tokens', 'id, name, bots, time_zone, created_at, last_used_at, revoked_at', 'created_at, id'),
  own('presence_seats', 'bot, conversation, thread_id, active_device', 'bot'),
  own('presence_pages', 'bot, page, device, seen_at', 'seen_at, page'),
  own('presence_events', 'bot, seq::text as seq, body, created_at', 'bot, presence_events.seq'),
  own('presence_checkpoints', 'bot, conversation, summary, lines_since, updated_at', 'updated_at, bot'),
  own('persons_seen', 'seen_at, paused_at', 'seen_at'),
  own('reservations', 'id, bot, reserved_at, hold::float8 as hold, hold_until, answers', 'reserved_at, id'),
  own('usage', 'id, reservation_id, bot, provider, model, prompt_tokens, completion_tokens, cost::float8 as cost, started_at, created_at', 'started_at, id'),
  own('tallies', 'bot, grain, starts_at, answers, spent::float8 as spent', 'starts_at, bot, grain'),
]);
