/**
 * The door's ledger over the database: every answer is admitted under the person's rolling windows
 * before anything is bought, holding its per-answer spend ceiling while it runs, and settled with
 * what it really cost. Admission is race-free across servers (see `db/reservations.ts`).
 */
import type { AnswerSpend, DoorLedger } from './chat/chatDoor';
import type { Database } from './db/database';
import { releaseReservation, reserveAnswer } from './db/reservations';
import { recordUsage } from './db/usage';
import type { GrantClaims } from './grants';

/** How long past an answer's own ceiling its unsettled hold still counts: time to settle it. */
export const HOLD_GRACE_MS = 30_000;

export function databaseLedger(db: Database): DoorLedger<GrantClaims> {
  const pending = new Map<string, { person: string; bot: string; startedAt: Date }>();
  return {
    async reserve({ grant, nowMs }) {
      const now = new Date(nowMs);
      const admitted = await db.asServer((tx) =>
        reserveAnswer(tx, {
          person: grant.person,
          bot: grant.bot,
          limits: grant.limits,
          holdUsd: grant.limits.spend,
          // The answer is cut at its minutes; its hold lapses a little after, settled or not.
          holdMs: grant.limits.minutes * 60_000 + HOLD_GRACE_MS,
          now,
        }),
      );
      if (!admitted.ok) return { ok: false, sentence: admitted.sentence };
      pending.set(admitted.reservationId, { person: grant.person, bot: grant.bot, startedAt: now });
      return { ok: true, reservation: admitted.reservationId };
    },
    async settle(reservation: string, spend: AnswerSpend) {
      const turn = pending.get(reservation);
      pending.delete(reservation);
      if (!turn) return;
      if (spend.provider === null || spend.model === null) {
        await db.asServer((tx) => releaseReservation(tx, reservation));
        return;
      }
      const { provider, model } = spend;
      await db.asServer((tx) =>
        recordUsage(tx, {
          reservationId: reservation,
          person: turn.person,
          bot: turn.bot,
          provider,
          model,
          promptTokens: spend.promptTokens,
          completionTokens: spend.completionTokens,
          costUsd: spend.costUsd,
          startedAt: turn.startedAt,
        }),
      );
    },
  };
}
