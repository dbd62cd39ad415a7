/** The simulator's `--help` text; flag names follow Node's where Node has them. */
export const USAGE = `usage: node --import tsx tools/node-sim/src/main.ts --bootstrap-secret-file <path> [flags]

  --listen <host:port>              public listener (default 127.0.0.1:8935)
  --metrics-listen <host:port>      loopback probes and metrics (default 127.0.0.1:8936)
  --service-url <url>               public base URL (default http://<listen>)
  --runner-service-url <url>        runner-facing base URL (default: the service URL)
  --bootstrap-secret-file <path>    bootstrap credential, used as exact bytes
  --generate-bootstrap-secret       create that file (random, no trailing newline, 0600) if missing
  --heartbeat-interval <duration>   Go duration (default 5s)
  --heartbeat-ttl <duration>        Go duration, greater than the interval (default 30s)
  --runner-grant <host:port>        allow a private/loopback runner destination (repeatable)
  --session-proxy-grant <host:port> allow a private session-proxy destination (repeatable)
  --paid                            paid mode (402 challenges, tickets, metering)
  --wei-per-usd <number>            wei/USD rate for paid mode
  --ticket-face-value <wei>         face value of tickets (default 1000000000000000)
  --ticket-win-prob <p>             win probability: a fraction (0.25) or Node's uint256 form
  --recipient <address>             orchestrator (ticket recipient) address (default: a test address)
  --payer-key-file <path>           hex secp256k1 key of the simulated signer (default: a well-known test key)
  --handoff-url <url>               send winning tickets to this URL in batches
  --handoff-secret-file <path>      credential for the hand-off (exact bytes)
  --data-dir <path>                 where the winning-ticket outbox lives
  --log-level <level>               pino level (default info)
  --id-format hex|base32            generated ids and secrets: hex (32 characters) or Node's newer
                                    runner_…/session_… ids and 52-character base32 secrets (default hex)
`;
