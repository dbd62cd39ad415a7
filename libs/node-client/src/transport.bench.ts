// The HTTP client for Node calls, measured: CPU, V8 heap allocation and latency per heartbeat-sized POST over
// keep-alive connections, for this library's transport (`createHttpTransport`, on undici) and for undici's
// `Pool#request` alone (what the transport adds on top). The server runs in its own process so only the
// client's CPU counts; the two take turns, twice each, and the lower CPU figure of the two turns is kept.
// Then what undici costs in memory: the RSS a fresh process that already talks node:http gains by loading
// undici, and by its first calls (which compile its WebAssembly HTTP parser).
// Run: node --import tsx libs/node-client/src/transport.bench.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { allocatedBytes, percentile, printFigure } from '@sandbox/testing';
import { Pool } from 'undici';
import { createHttpTransport, type HttpTransport } from './http-transport';

const CALLS = 20_000;
const CONCURRENCY = 64;
const BODY = JSON.stringify({
  runner_id: 'bench-runner-0000000000',
  runner_url: 'http://10.213.0.6:8080',
  app: 'bench',
  capacity: 4,
  price_per_unit: 1000,
  pixels_per_unit: 1,
  session_ids: [],
});
const REPLY = JSON.stringify({ heartbeat_interval: '5s', heartbeat_ttl: '30s', session_ids: [] });

const SERVER = `
const server = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.setHeader('content-type', 'application/json'); res.end(${JSON.stringify(REPLY)}); });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));`;

// The memory figures' process: node:http calls, then undici loaded, then undici's calls; prints the
// RSS (anonymous + file-backed, MB) after each step as JSON. The origin is its one argument.
const LOAD_COST = `
const http = require('node:http');
const rssMb = () => require('node:fs').readFileSync('/proc/self/status', 'utf8').split('\\n')
  .filter((line) => line.startsWith('RssAnon:') || line.startsWith('RssFile:'))
  .reduce((sum, line) => sum + parseInt(line.split(':')[1], 10) / 1024, 0);
const origin = process.argv[1];
const body = ${JSON.stringify(BODY)};
const agent = new http.Agent({ keepAlive: true });
const viaHttp = () => new Promise((resolve, reject) => {
  const req = http.request(origin + '/runners/heartbeat', { method: 'POST', agent }, (res) => {
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end(body);
});
const calls = async (send) => { for (let i = 0; i < 500; i += 1) await send(); };
(async () => {
  await calls(viaHttp);
  const before = rssMb();
  const { Pool } = require('undici');
  const loaded = rssMb();
  const pool = new Pool(origin);
  await calls(async () => (await pool.request({ method: 'POST', path: '/runners/heartbeat', body })).body.text());
  process.stdout.write(JSON.stringify({ before, loaded, called: rssMb() }));
  await pool.close();
  agent.destroy();
})();`;

type Send = () => Promise<void>;

function viaTransport(transport: HttpTransport, url: string): Send {
  return async () => {
    const answer = await transport({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', authorization: 'bench-secret' },
      body: BODY,
    });
    if (answer.status !== 200 || answer.text.length === 0) throw new Error(`status ${answer.status}`);
  };
}

function viaPool(pool: Pool): Send {
  return async () => {
    const { statusCode, body } = await pool.request({
      method: 'POST',
      path: '/runners/heartbeat',
      headers: { 'content-type': 'application/json', authorization: 'bench-secret' },
      body: BODY,
    });
    const text = await body.text();
    if (statusCode !== 200 || text.length === 0) throw new Error(`status ${statusCode}`);
  };
}

interface Measured {
  cpuUs: number;
  allocatedKb: number;
  latencies: number[];
}

/** CPU µs (user + system) and V8 heap KB allocated per call, and per-call latencies, CONCURRENCY in flight. */
async function measure(send: Send, calls: number): Promise<Measured> {
  const latencies: number[] = [];
  let next = 0;
  const gcs = new GCProfiler();
  gcs.start();
  const usedAtStart = getHeapStatistics().used_heap_size;
  const cpu = process.cpuUsage();
  const lane = async () => {
    while (next < calls) {
      next += 1;
      const started = performance.now();
      await send();
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const used = process.cpuUsage(cpu);
  const allocated = allocatedBytes(gcs.stop(), usedAtStart, getHeapStatistics().used_heap_size);
  return { cpuUs: (used.user + used.system) / calls, allocatedKb: allocated / 1024 / calls, latencies };
}

/** RSS figures of {@link LOAD_COST} run in a fresh process against `origin`. */
async function undiciMemory(origin: string): Promise<{ before: number; loaded: number; called: number }> {
  const child = spawn(process.execPath, ['-e', LOAD_COST, origin], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await once(child, 'exit');
  return JSON.parse(output) as { before: number; loaded: number; called: number };
}

const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const [portLine] = (await once(server.stdout, 'data')) as [Buffer];
const origin = `http://127.0.0.1:${portLine.toString().trim()}`;
const url = `${origin}/runners/heartbeat`;
const transport = createHttpTransport();
const pool = new Pool(origin, { connections: CONCURRENCY });
const clients: [name: string, send: Send][] = [
  ['transport', viaTransport(transport, url)],
  ['undici_pool', viaPool(pool)],
];
try {
  for (const [, send] of clients) await measure(send, 2_000);
  const best = new Map<string, Measured>();
  for (let turn = 0; turn < 2; turn += 1) {
    for (const [name, send] of clients) {
      const result = await measure(send, CALLS);
      const kept = best.get(name);
      if (kept === undefined || result.cpuUs < kept.cpuUs) best.set(name, result);
    }
  }
  for (const [name, { cpuUs, allocatedKb, latencies }] of best) {
    printFigure(`node_client_${name}_cpu_per_call_us`, cpuUs, CALLS);
    printFigure(`node_client_${name}_allocated_per_call_kb`, allocatedKb, CALLS);
    printFigure(`node_client_${name}_latency_p50_ms`, percentile(latencies, 50), latencies.length);
    printFigure(`node_client_${name}_latency_p99_ms`, percentile(latencies, 99), latencies.length);
  }
  const memory = await undiciMemory(origin);
  printFigure('node_client_undici_load_rss_mb', memory.loaded - memory.before, 1);
  printFigure('node_client_undici_first_calls_rss_mb', memory.called - memory.loaded, 1);
} finally {
  transport.close();
  await pool.close();
  server.kill();
}
