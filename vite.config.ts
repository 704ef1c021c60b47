import { readdirSync } from 'node:fs';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';
import { VitePWA } from 'vite-plugin-pwa';
import type { Plugin } from 'vite';
import { withStandInGraphs } from './test/helpers/standInManifest';

/**
 * The browser tests' build (`vite build --mode e2e`): the product page plus the harness pages in
 * test/e2e/harness, which drive the real platform modules on their own; written apart from `dist`,
 * so the product build never holds them.
 */
const HARNESS_DIR = 'test/e2e/harness';
/** `E2E_DIST` moves it, so two builds can run side by side. */
const E2E_OUT_DIR = process.env.E2E_DIST ?? 'e2e-build/dist';

function harnessPages(): Record<string, string> {
  const pages = readdirSync(HARNESS_DIR).filter((name) => name.endsWith('.html'));
  return Object.fromEntries(pages.map((name) => [`harness-${name.slice(0, -'.html'.length)}`, `${HARNESS_DIR}/${name}`]));
}

/**
 * The browser tests serve tiny stand-in graphs under Supertonic 3's names (test/e2e/tinyModels.ts),
 * which the real weights' pinned sha256 would refuse: the e2e build's worker reads a manifest with
 * those four graphs unpinned. The product build reads models/manifest.json as it is.
 */
function standInGraphs(): Plugin {
  return {
    name: 'confab-e2e-stand-in-graphs',
    enforce: 'pre',
    transform(code, id) {
      if (!id.endsWith('/models/manifest.json')) return null;
      return { code: JSON.stringify(withStandInGraphs(JSON.parse(code) as unknown)), map: null };
    },
  };
}

export default defineConfig(({ mode }) => ({
  ...(mode === 'e2e' ? { build: { outDir: E2E_OUT_DIR, emptyOutDir: true, rolldownOptions: { input: { main: 'index.html', ...harnessPages() } } } } : {}),
  plugins: [
    vue(),
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: 'script-defer',
      includeAssets: ['icon.svg'],
      manifest: {
        name: 'Confab',
        short_name: 'Confab',
        description: 'Talk with a bot that answers in a voice made on your own device.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#0b0d12',
        theme_color: '#0b0d12',
        icons: [
          { src: '/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api\//, /^\/v1\//, /^\/models\//],
        // The shell, the voice engine's WebAssembly for the processor (WASM) path, which every
        // device can run, and the voice activity model (2.3 MB), which hears the person over the
        // voice offline too; the WebGPU build (asyncify) is cached the first time it is used. The
        // voice's model files are never precached: the worker keeps them in its own cache as they download.
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}', 'assets/ort-wasm-simd-threaded-*.wasm', 'assets/silero_vad_v5-*.onnx'],
        globIgnores: ['test/**', '**/harness-*.js'],
        maximumFileSizeToCacheInBytes: 20 * 1024 * 1024,
        runtimeCaching: [
          {
            urlPattern: ({ url }) => url.pathname.startsWith('/assets/') && url.pathname.endsWith('.wasm'),
            handler: 'CacheFirst',
            options: { cacheName: 'confab-engine', expiration: { maxEntries: 4 } },
          },
        ],
      },
    }),
  ],
  worker: { format: 'es', plugins: () => (mode === 'e2e' ? [standInGraphs()] : []) },
  server: { host: '127.0.0.1' },
}));
