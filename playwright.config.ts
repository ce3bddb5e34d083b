import { defineConfig } from '@playwright/test';

// e2e runs the built app against the real server (SQLite in a fresh data
// dir, no demo cluster) in Debian's Chromium. The server requires credentials:
// e2e/tokens.csv (its --token-file) gives the tests known users; the browser
// starts signed in as e2e-admin (as if it had opened the printed `#token=`
// URL) and the API helpers send that token too; kubectl trusts the CA the
// server made in its data dir, and kubectl proxy uses the kubeconfig there.
export const E2E_PORT = Number(process.env.E2E_PORT ?? 18734);
export const E2E_TOKEN = 'e2e-admin-token';
export const E2E_DIR = `/tmp/kw-e2e-${E2E_PORT}`;
export const E2E_KUBECONFIG = `${E2E_DIR}/kubeconfig`;
const baseURL = `http://127.0.0.1:${E2E_PORT}`;

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL,
    storageState: {
      cookies: [],
      origins: [
        {
          origin: baseURL,
          localStorage: [{ name: 'kw.connections', value: JSON.stringify({ current: 'this-server', connections: [{ id: 'this-server', name: 'This server', baseUrl: baseURL, token: E2E_TOKEN }] }) }],
        },
      ],
    },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: `npx vite build --logLevel warn && bash -c 'rm -rf ${E2E_DIR} && exec npx tsx src/server/main.ts --port ${E2E_PORT} --data-dir ${E2E_DIR} --no-demo --token-file e2e/tokens.csv --audit-log-path ${E2E_DIR}.audit.log --audit-policy-file e2e/audit-policy.yaml'`,
    url: `http://127.0.0.1:${E2E_PORT}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
