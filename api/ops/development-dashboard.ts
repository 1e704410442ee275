import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../shared/platform/logging';
import { QUEUE_DASHBOARD_PATH } from './queue-dashboard';

/** A browser's address for the server: a wildcard bind is reached on loopback, an IPv6 literal in brackets. */
function browserHost(address: string): string {
  if (address === '0.0.0.0' || address === '::') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The one line that tells a person trying the service where the queue dashboard is and how to
 * sign in, when the token was generated at start (shared/networks developmentDashboardToken). The
 * token is printed on purpose: it is this process's own, on a stack that only its machine reaches.
 */
export function announceDevelopmentDashboard(logger: Logger, server: http.Server, token: string): void {
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${browserHost(address)}:${port}${QUEUE_DASHBOARD_PATH}`;
  logger.info(
    {
      url,
      user: 'any user name',
      development_password: token,
      curl: `curl -H "Authorization: Bearer ${token}" ${url}/api/queues`,
    },
    `queue dashboard at ${url}: sign in with any user name and development_password as the password (generated for this devchain stack because OPS_DASHBOARD_TOKEN is unset; it changes at every start)`,
  );
}
