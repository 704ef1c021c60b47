/// <reference lib="webworker" />
/** Code in workers/ runs in a DedicatedWorkerGlobalScope: `self` is the worker, never a window. */
declare const self: DedicatedWorkerGlobalScope;
