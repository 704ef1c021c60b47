/** A port on 127.0.0.1 that nothing listens on now, for a server a test or benchmark starts. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export async function sparePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
