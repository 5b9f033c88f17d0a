/** A loopback port that nothing listens on, for tests of a refused connection. */
import { createServer } from 'node:net';

/**
 * Binds a free port and closes it again: the port just freed is refused until something
 * else takes it, which is far likelier to hold than a fixed port (on a shared machine a
 * process run as root may well listen on port 1).
 */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
