# gen-responses.awk: N made-up responses of T tokens each, one JSON object a line, for measuring
# ingest and compare at scale. With -v diverge=1 every 1000th case differs at token 100.
#   awk -v N=100000 -v T=256 -f examples/gen-responses.awk >ref.jsonl
BEGIN {
	for (i = 0; i < N; i++) {
		line = sprintf("{\"case_id\": \"case-%06d\", \"tokens\": [", i)
		for (t = 0; t < T; t++) {
			tok = (i * 7919 + t * 104729) % 151000
			if (diverge && i % 1000 == 0 && t == 100)
				tok++
			line = line (t ? "," : "") tok
		}
		printf "%s], \"text\": \"response %d: the decoded text of the tokens\", \"finish_reason\": \"stop\", \"latency_ms\": %d, \"ttft_ms\": %d, \"output_tokens\": %d}\n", line, i, 100 + i % 50, 10 + i % 7, T
	}
}
