import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// `vite build` → dist/ (the app the Tauri shell loads).
// `vite build --mode mock` → dist-mock/ (same UI over a scripted fake backend,
// used by the browser tests).
export default defineConfig(({ mode }) => {
  const mock = mode === 'mock';
  return {
    base: './',
    plugins: [svelte()],
    clearScreen: false,
    server: { port: 1420, strictPort: true },
    build: {
      outDir: mock ? 'dist-mock' : 'dist',
      emptyOutDir: true,
      target: 'es2021',
      sourcemap: false,
      chunkSizeWarningLimit: 1500,
      rolldownOptions: {
        input: mock ? 'mock.html' : 'index.html',
      },
    },
  };
});
