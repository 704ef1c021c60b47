/**
 * The one entry that reads the environment and listens. Everything else is `createApp`.
 */
import { serve } from '@hono/node-server';
import { createApp } from './app';
import { ConfigError, readConfig } from './config';

try {
  const config = readConfig(process.env);
  const app = createApp({ config });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    const host = info.address.includes(':') ? `[${info.address}]` : info.address;
    console.warn(`Confab is running at http://${host}:${info.port}/`);
  });
  const close = () => server.close(() => process.exit(0));
  process.on('SIGINT', close);
  process.on('SIGTERM', close);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
