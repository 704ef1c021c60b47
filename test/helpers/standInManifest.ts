/**
 * The model manifest as the tests' mirrors need it: they serve tiny stand-in graphs under a
 * version's real onnx names (test/helpers/tinySupertonic.ts), which the pinned sha256 of the real
 * weights would rightly refuse. So the stand-ins' version has its four graphs unpinned — they load,
 * reported unverified — and every other file stays as pinned as in models/manifest.json. Used by the
 * unit tests and by the browser tests' build (vite.config.ts, `--mode e2e`); never by the product.
 */

interface ManifestJson {
  versions: Record<string, { revision: string; files: { path: string; size: number | null; sha256: string | null }[] }>;
}

/** A copy of `json` with `version`'s `.onnx` files unpinned. */
export function withStandInGraphs<T>(json: T, version = 'supertonic-3'): T {
  const copy = structuredClone(json) as T & ManifestJson;
  const source = copy.versions[version];
  if (source === undefined) throw new Error(`The manifest has no version ${version}.`);
  source.files = source.files.map((file) => (file.path.endsWith('.onnx') ? { ...file, size: null, sha256: null } : file));
  return copy;
}
