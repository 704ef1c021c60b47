import { describe, expect, it } from 'vitest';
import { admit, SettledTwice } from '../../../server/chat/admission';
import type { AnswerSpend, DoorLedger, Reservation } from '../../../server/chat/doorTypes';

const grant = { bot: 'sage', person: 'p1', limits: {} };
const spend: AnswerSpend = { promptTokens: 1, completionTokens: 1, provider: 'alpha', model: 'm', ended: 'stop', estimated: false, costUsd: 0.001, priced: true, nowMs: 0 };

function ledgerOf(reserved: Reservation) {
  const settled: string[] = [];
  const ledger: DoorLedger<typeof grant> = {
    reserve: () => Promise.resolve(reserved),
    settle: (reservation) => {
      settled.push(reservation);
      return Promise.resolve();
    },
  };
  return { ledger, settled };
}

describe('a turn’s admission', () => {
  it('settles its reservation once; a second settlement throws and reaches no ledger', async () => {
    const { ledger, settled } = ledgerOf({ ok: true, reservation: 'r1' });
    const admitted = await admit(ledger, grant, 0);
    if (!admitted.ok) throw new Error('admitted');
    expect(admitted.settled).toBe(false);
    await admitted.settle(spend);
    expect(admitted.settled).toBe(true);
    await expect(admitted.settle(spend)).rejects.toBeInstanceOf(SettledTwice);
    expect(settled).toEqual(['r1']);
  });

  it('is a refusal saying whose windows refused, with nothing to settle', async () => {
    const { ledger } = ledgerOf({ ok: false, sentence: 'No more today.', by: 'site' });
    expect(await admit(ledger, grant, 0)).toEqual({ ok: false, sentence: 'No more today.', by: 'site' });
  });
});
