/** Whether a parsed JSON value is an object with keys: not null, and not an array. */
export declare function isRecord(value: unknown): value is Record<string, unknown>;
