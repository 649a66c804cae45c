// Times LangGraph.js invokes of a 10-node linear graph checkpointed to a
// SQLite file, and prints one JSON line with the per-step cost.
//
//   node bench.mjs [INVOKES]       env: INVOKES (200), WARMUP (20), DURABILITY (sync)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";

const NODES = 10;
const invokes = Number(process.argv[2] ?? process.env.INVOKES ?? 200);
const warmup = Number(process.env.WARMUP ?? 20);
// "sync" makes every step's checkpoint durable before the next step starts,
// like a sanad step; LangGraph's own default is "async".
const durability = process.env.DURABILITY ?? "sync";
if (!Number.isInteger(invokes) || invokes < 1 || !Number.isInteger(warmup) || warmup < 0) {
  console.error("INVOKES must be a positive integer and WARMUP a non-negative one");
  process.exit(2);
}

const require = createRequire(import.meta.url);
const langgraphVersion = JSON.parse(
  readFileSync(join(require.resolve("@langchain/langgraph").split("/dist/")[0], "package.json"), "utf8"),
).version;

const State = Annotation.Root({ n: Annotation() });
let graph = new StateGraph(State);
for (let i = 0; i < NODES; i++) {
  graph = graph.addNode(`node${i}`, (s) => ({ n: s.n + 1 }));
  graph = graph.addEdge(i === 0 ? START : `node${i - 1}`, `node${i}`);
}
graph = graph.addEdge(`node${NODES - 1}`, END);

const dir = mkdtempSync(join(tmpdir(), "langgraph-bench-"));
const saver = SqliteSaver.fromConnString(join(dir, "checkpoints.db"));
const app = graph.compile({ checkpointer: saver });

function fail(msg) {
  console.error(msg);
  saver.db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}

async function run(threadId) {
  const out = await app.invoke({ n: 0 }, { configurable: { thread_id: threadId }, durability });
  if (out.n !== NODES) fail(`thread ${threadId}: final n = ${out.n}, want ${NODES}`);
}

for (let i = 0; i < warmup; i++) await run(`warmup-${i}`);

const invokeUs = [];
for (let i = 0; i < invokes; i++) {
  const t0 = process.hrtime.bigint();
  await run(`t-${i}`);
  invokeUs.push(Number(process.hrtime.bigint() - t0) / 1000);
}

let checkpoints = 0;
for await (const _ of saver.list({ configurable: { thread_id: "t-0" } })) checkpoints++;
const writes = saver.db.prepare("SELECT count(*) AS c FROM writes WHERE thread_id = ?").get("t-0").c;
const synchronous = saver.db.pragma("synchronous", { simple: true });
const journal = saver.db.pragma("journal_mode", { simple: true });
saver.db.close();
rmSync(dir, { recursive: true, force: true });

const sorted = [...invokeUs].sort((a, b) => a - b);
const mid = sorted.length >> 1;
const p50 = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
const mean = invokeUs.reduce((a, b) => a + b, 0) / invokeUs.length;
const r1 = (x) => Math.round(x * 10) / 10;

console.log(JSON.stringify({
  step_us_p50: r1(p50 / NODES),
  step_us_mean: r1(mean / NODES),
  invoke_us_p50: r1(p50),
  invokes,
  steps: invokes * NODES,
  checkpoints_per_invoke: checkpoints,
  writes_per_invoke: writes,
  durability,
  sqlite: `journal_mode=${journal} synchronous=${["OFF", "NORMAL", "FULL", "EXTRA"][synchronous] ?? synchronous}`,
  langgraph: langgraphVersion,
  node: process.version,
}));
