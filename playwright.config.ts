import { defineConfig } from '@playwright/test';

// e2e runs the built app against the real server (SQLite in a temporary data
// dir, no demo cluster) in Debian's Chromium.
export const E2E_PORT = Number(process.env.E2E_PORT ?? 18734);

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: `npx vite build --logLevel warn && bash -c 'd=$(mktemp -d) && exec npx tsx src/server/main.ts --port ${E2E_PORT} --data-dir "$d" --no-demo --token-file e2e/tokens.csv'`,
    url: `http://127.0.0.1:${E2E_PORT}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
