// Many pages' DOM after their scripts ran, from one headless Chromium: what
// 'chromium --headless --window-size=W,1200 --virtual-time-budget=5000 --dump-dom URL'
// prints for each page, without starting a browser per page (a start costs
// about a second of CPU, and tests/cli/t0355-site.sh loads 17 pages).
//
//   node dump-dom.mjs [--net-log FILE] [--user-data-dir DIR] [--chromium PATH] \
//       WIDTH URL OUT [WIDTH URL OUT]...
//
// Each page is loaded in a tab of its own, in a viewport WIDTH x 1200 (one profile
// for all, as one --user-data-dir was for the browsers it replaces: a browser
// context per page doubled the CPU), the way --dump-dom does it:
// load the page, then give it 5000 ms of virtual time, which stands still while
// a fetch is pending, so the scripts a page adds (data/run-N.js) have run when
// it ends. Its doctype and document.documentElement.outerHTML go to OUT; or, when
// OUT ends in .png, a screenshot of the whole page at that width (up to 16000 px tall).
// --net-log is Chromium's network log of every load (--log-net-log), complete
// once this script has exited. Exit 0 when every page was dumped; 1, naming
// the page, otherwise.
//
// It drives Chromium over the DevTools protocol on --remote-debugging-pipe
// (requests to its fd 3, answers and events from its fd 4, each message
// NUL-terminated), with node's own modules only.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";

const BUDGET_MS = 5000;
const PAGE_TIMEOUT_MS = 120000; // real time, for a load that never ends: a broken page, not a slow machine

let chromium = "chromium", netLog = null, userDataDir = null;
const args = process.argv.slice(2);
while (args.length && args[0].startsWith("--")) {
  const opt = args.shift(), val = args.shift();
  if (opt === "--net-log") netLog = val;
  else if (opt === "--user-data-dir") userDataDir = val;
  else if (opt === "--chromium") chromium = val;
  else die(`unknown option '${opt}'`);
}
if (!args.length || args.length % 3) die("usage: dump-dom.mjs [--net-log FILE] [--user-data-dir DIR] [--chromium PATH] WIDTH URL OUT...");
const jobs = [];
for (let i = 0; i < args.length; i += 3) {
  const width = Number(args[i]);
  if (!Number.isInteger(width) || width < 100) die(`'${args[i]}' is not a width in pixels`);
  jobs.push({ width, url: args[i + 1], out: args[i + 2] });
}

function die(msg) {
  process.stderr.write(`dump-dom.mjs: ${msg}\n`);
  process.exit(1);
}

const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--remote-debugging-pipe", "about:blank"];
if (userDataDir) flags.unshift(`--user-data-dir=${userDataDir}`);
if (netLog) flags.unshift(`--log-net-log=${netLog}`);
const browser = spawn(chromium, flags, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let stderr = "";
browser.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
const exited = new Promise((resolve) => browser.on("exit", (code, signal) => resolve({ code, signal })));
browser.on("error", (e) => die(`cannot start '${chromium}': ${e.message}`));

// The protocol: numbered calls, each answered once; events go to whoever waits for them.
let nextId = 1, inbuf = "";
const calls = new Map(), waiters = [];
browser.stdio[4].on("data", (chunk) => {
  inbuf += chunk.toString("utf8");
  let nul;
  while ((nul = inbuf.indexOf("\0")) >= 0) {
    const msg = JSON.parse(inbuf.slice(0, nul));
    inbuf = inbuf.slice(nul + 1);
    if (msg.id !== undefined) {
      const c = calls.get(msg.id);
      calls.delete(msg.id);
      if (msg.error) c.reject(new Error(`${c.method}: ${msg.error.message}`));
      else c.resolve(msg.result);
    } else {
      for (let i = 0; i < waiters.length; i++) {
        const w = waiters[i];
        if (w.method === msg.method && w.sessionId === msg.sessionId && w.match(msg.params)) {
          waiters.splice(i, 1);
          w.resolve(msg.params);
          break;
        }
      }
    }
  }
});
exited.then(({ code, signal }) => {
  const why = new Error(`chromium exited (${signal || code}) before it answered:\n${stderr}`);
  for (const c of calls.values()) c.reject(why);
  for (const w of waiters) w.reject(why);
});

function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  return new Promise((resolve, reject) => {
    calls.set(id, { method, resolve, reject });
    browser.stdio[3].write(JSON.stringify(msg) + "\0");
  });
}
// The next event METHOD of the session that MATCH accepts: ask before the command that causes it.
function event(method, sessionId, match = () => true) {
  return new Promise((resolve, reject) => waiters.push({ method, sessionId, match, resolve, reject }));
}
function within(ms, promise, what) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function dump(job) {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  try {
    await send("Page.enable", {}, sessionId);
    await send("Page.setLifecycleEventsEnabled", { enabled: true }, sessionId);
    await send("Emulation.setDeviceMetricsOverride", { width: job.width, height: 1200, deviceScaleFactor: 1, mobile: false }, sessionId);
    // the main frame's id is its target's
    const loaded = event("Page.lifecycleEvent", sessionId, (p) => p.name === "load" && p.frameId === targetId);
    const nav = await send("Page.navigate", { url: job.url }, sessionId);
    if (nav.errorText) throw new Error(`cannot load: ${nav.errorText}`);
    await within(PAGE_TIMEOUT_MS, loaded, "the page's load event");
    const expired = event("Emulation.virtualTimeBudgetExpired", sessionId);
    await send("Emulation.setVirtualTimePolicy", { policy: "pauseIfNetworkFetchesPending", budget: BUDGET_MS,
      maxVirtualTimeTaskStarvationCount: 9999 }, sessionId);
    await within(PAGE_TIMEOUT_MS, expired, "the page's virtual time");
    if (job.out.endsWith(".png")) { // a picture of the whole page at that width, for a person to look at
      const { cssContentSize: size } = await send("Page.getLayoutMetrics", {}, sessionId);
      const shot = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true,
        clip: { x: 0, y: 0, width: job.width, height: Math.min(Math.ceil(size.height), 16000), scale: 1 } }, sessionId);
      writeFileSync(job.out, Buffer.from(shot.data, "base64"));
      return;
    }
    const r = await send("Runtime.evaluate", { returnByValue: true, expression:
      "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '') + document.documentElement.outerHTML" },
    sessionId);
    if (r.exceptionDetails || typeof r.result.value !== "string") throw new Error("cannot read the DOM: " + JSON.stringify(r.exceptionDetails || r.result).slice(0, 300));
    writeFileSync(job.out, r.result.value + "\n");
  } finally {
    await send("Target.closeTarget", { targetId });
  }
}

let status = 0;
try {
  for (const job of jobs) {
    try {
      await dump(job);
    } catch (e) {
      process.stderr.write(`dump-dom.mjs: ${job.url} at ${job.width} px: ${e.message}\n`);
      status = 1;
      break;
    }
  }
  await within(30000, send("Browser.close"), "Browser.close");
} catch (e) {
  process.stderr.write(`dump-dom.mjs: ${e.message}\n`);
  browser.kill("SIGKILL");
  status = 1;
}
await exited; // the network log is complete once chromium has exited
process.exit(status);
