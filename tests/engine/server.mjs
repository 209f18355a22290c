// A real inference engine for the tests: llama.cpp (through node-llama-cpp, pinned in package.json)
// behind a small OpenAI-compatible server, loopback only. POST /v1/completions streams in vLLM's
// shapes (token_ids per chunk with return_token_ids, a usage chunk, [DONE]); GET /v1/models (owned_by
// "llamacpp", as llama-server says); GET /props as llama-server answers it, its build_info the llama.cpp
// release node-llama-cpp reports it loaded (so labrun identifies the engine from what it says); GET
// /metrics serves vLLM's gauges vllm:num_requests_running and vllm:num_requests_waiting; POST
// /solo generates for one prompt alone, unstreamed, so tests compare with the engine's own output.
//
// usage: node server.mjs MODEL.gguf PORTFILE LANES per-lane|shared
//   per-lane: one context per lane, one sequence each (results equal solo requests, bit for bit);
//   shared: one context holding LANES sequences, decoded in batches (set UV_THREADPOOL_SIZE=1).
// LABRUN_ENGINE_DELAY_MS=N waits N ms after each streamed token (a fault drill kills the engine
// mid-stream); /metrics counts the tokens streamed so far (labrun_engine_tokens_streamed).
import http from "node:http";
import fs from "node:fs";
import { getLlama } from "node-llama-cpp";

const [modelPath, portFile, lanesArg, layout] = process.argv.slice(2);
const lanes = Number(lanesArg || 1);
const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const model = await llama.loadModel({ modelPath });
const free = [];
if (layout === "shared") {
	const ctx = await model.createContext({ contextSize: 256 * lanes, threads: 1, sequences: lanes });
	for (let i = 0; i < lanes; i++) free.push(ctx.getSequence());
} else {
	for (let i = 0; i < lanes; i++)
		free.push((await model.createContext({ contextSize: 256, threads: 1, sequences: 1 })).getSequence());
}
const soloSeq = (await model.createContext({ contextSize: 256, threads: 1, sequences: 1 })).getSequence();
const waiting = [];
const delay = Number(process.env.LABRUN_ENGINE_DELAY_MS || 0);
let running = 0, streamed = 0;

function lane() {
	if (free.length) return Promise.resolve(free.pop());
	return new Promise((resolve) => waiting.push(resolve));
}
function release(seq) {
	const next = waiting.shift();
	if (next) next(seq);
	else free.push(seq);
}

async function generate(seq, prompt, max) {
	await seq.clearHistory();
	const tokens = Array.isArray(prompt) ? prompt : model.tokenize(prompt);
	const out = [];
	for await (const t of seq.evaluate(tokens, { temperature: 0 })) {
		if (t === model.tokens.eos) return { out, finish: "stop", prompt: tokens.length };
		out.push(t);
		if (out.length >= max) break;
	}
	return { out, finish: "length", prompt: tokens.length };
}

async function completions(req, res, body) {
	const max = body.max_tokens ?? 16, ids = !!body.return_token_ids;
	res.writeHead(200, { "Content-Type": "text/event-stream", Connection: "close" });
	const seq = await lane();
	running++;
	try {
		await seq.clearHistory();
		const prompt = Array.isArray(body.prompt) ? body.prompt : model.tokenize(body.prompt);
		let n = 0, finish = "length";
		for await (const t of seq.evaluate(prompt, { temperature: 0 })) {
			if (t === model.tokens.eos) {
				finish = "stop";
				break;
			}
			const choice = { index: 0, text: model.detokenize([t]), finish_reason: null };
			if (ids) choice.token_ids = [t];
			const chunk = { id: "cmpl-engine", object: "text_completion", model: "labrun-tiny", choices: [choice] };
			if (ids && n === 0) chunk.prompt_token_ids = prompt;
			res.write("data: " + JSON.stringify(chunk) + "\n\n");
			streamed++;
			if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
			if (++n >= max) break;
		}
		res.write("data: " + JSON.stringify({ id: "cmpl-engine", choices: [{ index: 0, text: "", finish_reason: finish }] }) + "\n\n");
		res.write("data: " + JSON.stringify({ id: "cmpl-engine", choices: [],
			usage: { prompt_tokens: prompt.length, completion_tokens: n, total_tokens: prompt.length + n } }) + "\n\n");
		res.write("data: [DONE]\n\n");
	} finally {
		running--;
		release(seq);
		res.end();
	}
}

const server = http.createServer(async (req, res) => {
	const chunks = [];
	for await (const c of req) chunks.push(c);
	try {
		if (req.method === "GET" && req.url === "/v1/models") {
			res.writeHead(200, { "Content-Type": "application/json", Server: "labrun-test-engine/llama.cpp" });
			res.end(JSON.stringify({ object: "list", data: [{ id: "labrun-tiny", object: "model", owned_by: "llamacpp" }] }));
		} else if (req.method === "GET" && req.url === "/props") {
			const r = llama.llamaCppRelease;
			res.writeHead(200, { "Content-Type": "application/json" });
			res.end(JSON.stringify({
				default_generation_settings: { n_ctx: 256 },
				total_slots: lanes,
				model_path: modelPath,
				build_info: `${r.repo} ${r.release} (node-llama-cpp, ${llama.buildType})`,
			}));
		} else if (req.method === "GET" && req.url === "/metrics") {
			res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" });
			res.end(`# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="labrun-tiny"} ${running}\n` +
				`# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name="labrun-tiny"} ${waiting.length}\n` +
				`# TYPE labrun_engine_tokens_streamed counter\nlabrun_engine_tokens_streamed ${streamed}\n`);
		} else if (req.method === "POST" && req.url === "/v1/completions") {
			await completions(req, res, JSON.parse(Buffer.concat(chunks).toString()));
		} else if (req.method === "POST" && req.url === "/solo") {
			const body = JSON.parse(Buffer.concat(chunks).toString());
			const r = await generate(soloSeq, body.prompt, body.max_tokens ?? 16);
			res.writeHead(200, { "Content-Type": "application/json" });
			res.end(JSON.stringify({ tokens: r.out, text: model.detokenize(r.out), finish_reason: r.finish }));
		} else {
			res.writeHead(404);
			res.end();
		}
	} catch (e) {
		if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
		res.end(JSON.stringify({ error: { message: String(e) } }));
	}
});
server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(portFile + ".tmp", String(server.address().port));
	fs.renameSync(portFile + ".tmp", portFile);
});
