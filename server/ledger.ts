/**
 * The door's ledger over the database: every answer is admitted under the person's rolling windows
 * before anything is bought, holding its per-answer spend ceiling while it runs, and settled with
 * what it really cost. Admission is race-free across servers (see `db/reservations.ts`).
 *
 * It also remembers, per person, bot and ceilings, the room their last admission left, less what
 * this server admitted since: while that covers one more answer and its hold, the door may ask the
 * provider while the turn is being reserved (`roomFor`). Windows only free up as time passes, so on
 * one server the room it remembers is never more than there is; another server's admissions can
 * take it, and then the reservation refuses a turn already asked (`settleRefused`).
 */
import type { AnswerSpend, DoorLedger } from './chat/chatDoor';
import type { Database } from './db/database';
import { releaseReservation, reserveAnswer } from './db/reservations';
import type { Room } from './db/reservations';
import { recordUsage } from './db/usage';
import type { GrantClaims } from './grants';

/** How long past an answer's own ceiling its unsettled hold still counts: time to settle it. */
export const HOLD_GRACE_MS = 30_000;

/** How many persons' room the ledger remembers; past it the longest unused is forgotten. */
export const ROOM_REMEMBERED = 10_000;

export function databaseLedger(db: Database): DoorLedger<GrantClaims> {
  const pending = new Map<string, { person: string; bot: string; startedAt: Date }>();
  const rooms = new Map<string, Room>();
  const roomKey = (grant: GrantClaims) => `${grant.person}\u0000${grant.bot}\u0000${JSON.stringify(grant.limits)}`;
  const remember = (key: string, room: Room) => {
    rooms.delete(key);
    rooms.set(key, room);
    if (rooms.size > ROOM_REMEMBERED) {
      const oldest = rooms.keys().next();
      if (oldest.done !== true) rooms.delete(oldest.value);
    }
  };
  /** Records what a turn bought, against its reservation when it has one; nothing when nothing was bought. */
  const record = async (turn: { person: string; bot: string; startedAt: Date; reservationId?: string }, spend: AnswerSpend) => {
    if (spend.provider === null || spend.model === null) return;
    const { provider, model } = spend;
    await db.asServer((tx) =>
      recordUsage(tx, {
        ...turn,
        provider,
        model,
        promptTokens: spend.promptTokens,
        completionTokens: spend.completionTokens,
        costUsd: spend.costUsd,
      }),
    );
  };
  return {
    roomFor(grant) {
      const room = rooms.get(roomKey(grant));
      if (room === undefined) return false;
      return (room.answers === null || room.answers >= 1) && (room.spendUsd === null || room.spendUsd >= grant.limits.spend);
    },
    async reserve({ grant, nowMs }) {
      const now = new Date(nowMs);
      // Counted at once, so two turns at the same moment cannot both be asked on the same room.
      const key = roomKey(grant);
      const room = rooms.get(key);
      if (room !== undefined) {
        remember(key, {
          answers: room.answers === null ? null : room.answers - 1,
          spendUsd: room.spendUsd === null ? null : room.spendUsd - grant.limits.spend,
        });
      }
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
      if (!admitted.ok) {
        rooms.delete(key);
        return { ok: false, sentence: admitted.sentence };
      }
      remember(key, admitted.room);
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
      await record({ person: turn.person, bot: turn.bot, startedAt: turn.startedAt, reservationId: reservation }, spend);
    },
    async settleRefused(grant, spend) {
      await record({ person: grant.person, bot: grant.bot, startedAt: new Date(spend.startedMs) }, spend);
    },
  };
}
