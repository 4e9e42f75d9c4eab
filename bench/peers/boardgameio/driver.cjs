// Drives a boardgame.io server from its own client library, as a browser would (socket.io):
// `node driver.cjs PORT SERVER_PID SECONDS CONCURRENCY...`. Prints one JSON line per concurrency:
// moves per second, p50 and p99 of a move's round trip (the move sent until the server's update arrives),
// and the server's CPU per move (from /proc, the timed window only). Match setup (create, join, connect)
// happens before the clock starts and is reported apart, as `setup_ms`.
const fs = require("node:fs");
const os = require("node:os");
const { Client, LobbyClient } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");
const race = require("./game.cjs");

const [port, serverPid, seconds, ...levels] = process.argv.slice(2).map(Number);
const server = `http://127.0.0.1:${port}`;
const ticks = 100; // USER_HZ on Linux

function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

async function seat() {
  const lobby = new LobbyClient({ server });
  const { matchID } = await lobby.createMatch("race", { numPlayers: 1 });
  const { playerCredentials } = await lobby.joinMatch("race", matchID, { playerID: "0", playerName: "p0" });
  const client = Client({ game: race, multiplayer: SocketIO({ server }), matchID, playerID: "0",
                          credentials: playerCredentials, debug: false });
  client.start();
  await new Promise((resolve) => {
    const stop = client.subscribe((state) => { if (state && state.isConnected) { stop(); resolve(); } });
  });
  return client;
}

function move(client) {
  const before = client.getState()._stateID;
  return new Promise((resolve) => {
    const stop = client.subscribe((state) => {
      if (state && state._stateID > before) { stop(); resolve(); }
    });
    client.moves.step();
  });
}

function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function measure(concurrency) {
  const setupStart = process.hrtime.bigint();
  const clients = await Promise.all(Array.from({ length: concurrency }, seat));
  const setupMs = Number(process.hrtime.bigint() - setupStart) / 1e6;
  for (const client of clients) await move(client); // warm: the first move of a match
  const latencies = [];
  const cpu0 = cpuSeconds(serverPid);
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(seconds * 1e9));
  await Promise.all(clients.map(async (client) => {
    while (process.hrtime.bigint() < end) {
      const t = process.hrtime.bigint();
      await move(client);
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }));
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = cpuSeconds(serverPid) - cpu0;
  for (const client of clients) client.stop();
  latencies.sort((a, b) => a - b);
  return { concurrency, count: latencies.length, per_s: latencies.length / wall,
           p50_ms: percentile(latencies, 0.5), p99_ms: percentile(latencies, 0.99),
           cpu_ms: (1000 * cpu) / Math.max(latencies.length, 1), setup_ms: setupMs, cores: os.cpus().length };
}

(async () => {
  for (const level of levels) console.log(JSON.stringify(await measure(level)));
  process.exit(0);
})().catch((error) => { console.error(error); process.exit(1); });
