/**
 * The only thing that lets a `confirm` verb run: an approval made by the confirmation route from a
 * pending action the person approved in their own page. It cannot be written in a request, an
 * argument or a model's output — it is an object, not a value — and it is good for one call of the
 * one verb it names.
 */
const issued = new WeakSet<Approval>();

export class Approval {
  private constructor(
    /** The pending action the person approved. */
    readonly actionId: string,
    /** The verb it lets run, once. */
    readonly verb: string,
  ) {}

  /** For the confirmation route alone: the person approved `actionId`, a pending call of `verb`. */
  static issue(actionId: string, verb: string): Approval {
    const approval = new Approval(actionId, verb);
    issued.add(approval);
    return approval;
  }
}

/** Whether `approval` lets `verb` run now; spends it, so a second call with it is refused. */
export function spendApproval(approval: Approval | undefined, verb: string): boolean {
  if (approval === undefined || !issued.has(approval) || approval.verb !== verb) return false;
  issued.delete(approval);
  return true;
}
