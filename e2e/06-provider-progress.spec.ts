// A provider whose upstream accepts the connection and never answers: while "Test connection"
// waits for the gateway's upstream timeout, the row says what it is doing.
import { createServer, type Server, type Socket } from 'node:net';
import { expect, test } from '@playwright/test';
import { gotoView, openStudio } from './helpers';

let server: Server;
const sockets = new Set<Socket>();

test.beforeAll(async () => {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

test.afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server?.close(resolve));
});

test('a slow connection test shows "Testing connection…" until it ends', async ({ page }) => {
  const id = 'e2e-hang';
  const port = (server.address() as { port: number }).port;
  await openStudio(page);
  await gotoView(page, 'Providers');
  const form = page.getByRole('form', { name: 'Add a provider' });
  await form.getByLabel('Kind', { exact: true }).selectOption('openai');
  await form.getByLabel('Provider id', { exact: true }).fill(id);
  await form.getByLabel('Base URL', { exact: true }).fill(`http://127.0.0.1:${port}/v1`);
  await form.getByLabel('API key', { exact: true }).fill('sk-never-answered');
  await form.getByRole('button', { name: 'Add provider' }).click();

  const list = page.getByRole('region', { name: 'Providers' });
  const row = list.getByRole('row').filter({ has: page.getByText(id, { exact: true }) });
  await row.getByRole('button', { name: 'Test connection' }).click();
  const progress = row.getByRole('status', { name: `Progress for ${id}` });
  await expect(progress).toHaveText('Testing connection…');
  await expect(row.getByRole('button', { name: 'Test connection' })).toBeDisabled();
  // The label goes once the gateway gives up on the upstream (its timeout), with the result.
  await expect(list.getByRole('status', { name: `Results for ${id}` })).toContainText('failed', { timeout: 60_000 });
  await expect(progress).toHaveCount(0);

  await row.getByRole('button', { name: 'Remove' }).click();
  await expect(row).toHaveCount(0);
});
