/**
 * Declares, before @ennuicastr/webrtcaec3.js runs, the global its build assigns its inline
 * WebAssembly to (`WebRtcAec3Wasm = "data:…"`, with no `var`): bundled into an ES module, which is
 * strict, that assignment to an undeclared name would throw. Imported by aec3.ts ahead of the package.
 */
(globalThis as { WebRtcAec3Wasm?: string }).WebRtcAec3Wasm ??= '';
