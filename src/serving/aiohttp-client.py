"""The peer of 'labrun bench collect': a streaming client of the kind vLLM's
'bench serve' is (asyncio and aiohttp, one session, a semaphore for the
concurrency, every request a task), sending the same requests as
'labrun collect' and writing the same fields of every response to a file.
ARRIVALS, when given, holds each request's arrival time (seconds after the
start, a line each): the task of a request is made at that time, as vLLM's
'bench serve' does with asyncio.sleep; its send lag is the time it starts
its POST less that arrival time.

usage: python3 aiohttp-client.py URL CASES CONCURRENCY MAX_TOKENS OUT [ARRIVALS]
Prints one JSON object: completed, failed, tokens, duration_s, lag_ms.
"""
import asyncio
import json
import sys
import time

import aiohttp


async def one(session, sem, url, case, max_tokens, scheduled):
    body = {
        "prompt": case["prompt"],
        "max_tokens": case.get("max_tokens", max_tokens),
        "temperature": 0.0,
        "stream": True,
        "stream_options": {"include_usage": True},
        "ignore_eos": True,
        "return_token_ids": True,
    }
    out = {"case_id": case["case_id"], "request": body, "status": 0, "token_ids": [],
           "text": "", "finish_reason": None, "ttft_ms": None, "itl_ms": [], "e2el_ms": None,
           "usage": None, "failure": None}
    async with sem:
        start = time.perf_counter()
        out["lag_ms"] = (start - scheduled) * 1e3
        last = start
        text = []
        try:
            async with session.post(url, json=body) as resp:
                out["status"] = resp.status
                if resp.status != 200:
                    out["failure"] = "HTTP %d" % resp.status
                    return out
                async for line in resp.content:  # one SSE line at a time
                    line = line.strip()
                    if not line:
                        continue
                    data = line.decode("utf-8").removeprefix("data: ")
                    if data == "[DONE]":
                        continue
                    chunk = json.loads(data)
                    choices = chunk.get("choices")
                    if choices:
                        now = time.perf_counter()
                        if out["ttft_ms"] is None:
                            out["ttft_ms"] = (now - start) * 1e3
                        else:
                            out["itl_ms"].append((now - last) * 1e3)
                        last = now
                        c = choices[0]
                        text.append(c.get("text") or "")
                        out["token_ids"].extend(c.get("token_ids") or [])
                        if c.get("finish_reason"):
                            out["finish_reason"] = c["finish_reason"]
                    elif chunk.get("usage"):
                        out["usage"] = chunk["usage"]
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as e:
            out["failure"] = "%s: %s" % (type(e).__name__, e)
        out["e2el_ms"] = (time.perf_counter() - start) * 1e3
        out["text"] = "".join(text)
        return out


async def main(url, cases_path, concurrency, max_tokens, out_path, arrivals_path):
    with open(cases_path, encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    arrivals = [0.0] * len(cases)
    if arrivals_path:
        with open(arrivals_path, encoding="utf-8") as f:
            arrivals = [float(line) for line in f if line.strip()]
    sem = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency, keepalive_timeout=60)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        start = time.perf_counter()
        tasks = []
        for c, at in zip(cases, arrivals):
            delay = start + at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(session, sem, url, c, max_tokens, start + at)))
        results = await asyncio.gather(*tasks)
        duration = time.perf_counter() - start
    with open(out_path, "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    done = [r for r in results if r["failure"] is None and r["finish_reason"]]
    print(json.dumps({"completed": len(done), "failed": len(results) - len(done),
                      "tokens": sum(len(r["token_ids"]) for r in done), "duration_s": duration,
                      "lag_ms": [r["lag_ms"] for r in results]}))


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__.strip().splitlines()[-2])
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
                     sys.argv[6] if len(sys.argv) == 7 else None))
