/**
 * The `webauthn_challenges` table: every challenge a ceremony is begun with, kept so that any instance
 * can finish it, and taken (deleted) by the one statement that reads it, so it is answered once.
 */
import type { Queryable } from '../db/queryable';
import { iso, msOf } from '../db/rows';

/** What a challenge is for: making a passkey for a person, or signing in with one. */
export type ChallengePurpose = 'register' | 'sign-in';

export interface ChallengeRow {
  purpose: ChallengePurpose;
  /** Whom a registration is for; null for a sign-in. */
  person: string | null;
  expiresAtMs: number;
}

/** Keeps a challenge, sweeping those that lapsed by `nowMs` (the index on expiry keeps that cheap). */
export async function keepChallenge(tx: Queryable, challenge: string, kept: ChallengeRow & { nowMs: number }): Promise<void> {
  await tx.query('delete from webauthn_challenges where expires_at <= $1', [iso(kept.nowMs)]);
  await tx.query('insert into webauthn_challenges (challenge, purpose, person, expires_at) values ($1, $2, $3, $4)', [challenge, kept.purpose, kept.person, iso(kept.expiresAtMs)]);
}

/** Takes a challenge: deletes it and answers what it was, or undefined when it was never made or was taken already. */
export async function takeChallenge(tx: Queryable, challenge: string): Promise<ChallengeRow | undefined> {
  const { rows } = await tx.query<{ purpose: ChallengePurpose; person: string | null; expires_at: Date | string }>(
    'delete from webauthn_challenges where challenge = $1 returning purpose, person, expires_at',
    [challenge],
  );
  const row = rows[0];
  return row === undefined ? undefined : { purpose: row.purpose, person: row.person, expiresAtMs: msOf(row.expires_at) };
}
