export interface Backend {
  /** The server's name: what `X-Served-By` answers and `X-Rfq-Replica` pins to. */
  name: string;
  address: string;
}

/**
 * HAProxy in front of the API and socket replicas. `/socket/...` (the WebSocket upgrade) goes to
 * the socket replicas, everything else to the API replicas, round robin. A replica is taken out
 * when its `/readyz` stops answering 200 and put back when it does again. WebSockets: HAProxy
 * passes the upgrade through in `mode http`; `timeout tunnel` then bounds an idle socket (the
 * Phoenix heartbeat keeps live ones busy).
 *
 * Retries: a request whose connection a replica refused is sent to the other one (`redispatch`).
 * A request a replica took and then died with (an empty or broken answer, or none within
 * `timeout server`) is sent again only when that is safe: a GET or HEAD, or a write carrying an
 * `Idempotency-Key` (the API stores the first answer in the transaction that did the work, so
 * the retry gets that answer, never a second quote). Any other write answers 502 and its client
 * decides; docs/SCALING.md says so.
 *
 * Every answer names the replica that served it
 * (`X-Served-By`); a request with `X-Rfq-Replica: <name>` is sent to that replica (tests and
 * operators pin a connection with it).
 */
export function haproxyConfig(opts: {
  bind: string;
  api: Backend[];
  socket: Backend[];
  /** A DNS server to resolve server names with at run time (Docker's is 127.0.0.11:53); names need not resolve at start. */
  resolver?: string;
}): string {
  const servers = (list: Backend[]) => list.map((s) => `  server ${s.name} ${s.address} check inter 1s fall 2 rise 2`).join('\n');
  const pins = (list: Backend[]) => list.map((s) => `  use-server ${s.name} if { req.hdr(x-rfq-replica) -m str ${s.name} }`).join('\n');
  const resolvers = opts.resolver ? `\nresolvers dns\n  nameserver dns ${opts.resolver}\n  hold valid 5s\n` : '';
  const defaultServer = opts.resolver ? '\n  default-server init-addr last,libc,none resolvers dns' : '';
  return `global
  maxconn 4000
  log stdout format raw local0
${resolvers}
defaults
  log global
  mode http
  option httplog
  option http-server-close
  option forwardfor
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response junk-response response-timeout
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  timeout client-fin 5s${defaultServer}

frontend rfq
  bind ${opts.bind}
  acl is_socket path_beg /socket/
  use_backend socket if is_socket
  default_backend api

backend api
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  http-request disable-l7-retry if !METH_GET !{ req.hdr(idempotency-key) -m found }
  http-response set-header X-Served-By %s
${pins(opts.api)}
${servers(opts.api)}

backend socket
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  http-response set-header X-Served-By %s
${pins(opts.socket)}
${servers(opts.socket)}
`;
}
