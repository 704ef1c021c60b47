/**
 * What each outside tool was first said to be, kept: an MCP server's annotations are its own word,
 * and a server that later claims a tool is safer (a `delete_item` that becomes `readOnlyHint: true`
 * after an update, or after a takeover) is held to the stricter. So the risk Confab first saw for
 * a tool is kept — in memory for the process, and in the data folder (`outside-risks.json`) across
 * restarts — and only ever raised: a tool is as risky as the riskiest it was ever said to be.
 *
 * The file is one JSON object, `{ "<app file>": { "<tool>": "read" | "write" | "destructive" } }`;
 * deleting it (or an app's entry) lets the server's present word be taken afresh at the next start.
 * Each instance keeps its own (the data folder is per instance).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Risk } from '../verbs/verb';

export interface KeptRisks {
  /** The risk kept for `tool` of the app file `file`; undefined when it was never seen. */
  get(file: string, tool: string): Risk | undefined;
  /** Keeps `risk` for `tool` (the caller passes the stricter of what was kept and what is claimed now). */
  keep(file: string, tool: string, risk: Risk): void;
}

const RANK: Readonly<Record<Risk, number>> = { read: 0, write: 1, destructive: 2 };

/** The riskier of `a` and `b`. */
export function stricter(a: Risk, b: Risk): Risk {
  return RANK[a] >= RANK[b] ? a : b;
}

/** Whether `claimed` says less can change than `kept`. */
export function isSafer(claimed: Risk, kept: Risk): boolean {
  return RANK[claimed] < RANK[kept];
}

type Kept = Record<string, Record<string, Risk>>;

/** Kept for this process only (tests; a server with no data folder). */
export function keptRisksInMemory(): KeptRisks {
  const kept: Kept = {};
  return {
    get: (file, tool) => kept[file]?.[tool],
    keep(file, tool, risk) {
      (kept[file] ??= {})[tool] = risk;
    },
  };
}

/** The file name in the data folder. */
export const KEPT_RISKS_FILE = 'outside-risks.json';

/**
 * Kept in the JSON file at `path` (read now; written whole on each change, through a temporary file
 * renamed over it, so a crash leaves the old one or the new). A file that does not parse refuses
 * the start: forgetting it silently would believe every server afresh.
 */
export function keptRisksIn(path: string): KeptRisks {
  let kept: Kept = {};
  try {
    kept = JSON.parse(readFileSync(path, 'utf8')) as Kept;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') {
      throw new Error(`${path} cannot be read as the outside tools' kept risks (${error instanceof Error ? error.message : String(error)}); fix or delete it, and Confab will take each server's word afresh.`, { cause: error });
    }
  }
  const valid = (risk: unknown): risk is Risk => risk === 'read' || risk === 'write' || risk === 'destructive';
  return {
    get: (file, tool) => {
      const risk = kept[file]?.[tool];
      return valid(risk) ? risk : undefined;
    },
    keep(file, tool, risk) {
      if (kept[file]?.[tool] === risk) return;
      kept = { ...kept, [file]: { ...kept[file], [tool]: risk } };
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const temporary = `${path}.${String(process.pid)}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, path);
    },
  };
}
