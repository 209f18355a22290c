/* The null streaming server of 'labrun bench collect': vLLM's stream shapes at no cost of its own. */
#include "config.h"
#include "base/system.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <jansson.h>

#include "serving/nullserver.h"

#define REQUEST_MAX (16 * 1024) /* the benchmark's request bodies are well under 1 KiB */

/* Where a connection's response is: each step writes one chunk of it. */
enum phase { READING, TOKENS, USAGE, DONE, CLOSING };

struct conn {
	int fd;
	enum phase phase;
	int64_t id, left, tokens, prompt; /* the request's number, tokens still to send, asked, prompt size */
	size_t inlen, outlen, outoff;
	char in[REQUEST_MAX];
	char out[LR_NULLSERVER_MAXBURST * 512];
};

struct server {
	int epfd, burst;
	int64_t requests, tokens, next_id;
};

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static void conn_close(struct server *s, struct conn *c)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c);
}

static void conn_wait(struct server *s, struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* One HTTP chunk holding 'event' (an SSE event) appended to the connection's output. */
static void put_chunk(struct conn *c, const char *event, int len)
{
	c->outlen +=
		(size_t)snprintf(c->out + c->outlen, sizeof c->out - c->outlen, "%x\r\n%s\r\n", (unsigned)len, event);
}

/* The next chunk of a streaming response appended; after the last, the connection reads its next request. */
static void next_chunk(struct server *s, struct conn *c)
{
	char ev[480];
	int n;

	switch (c->phase) {
	case TOKENS: {
		int64_t i = c->tokens - c->left, tok = (int64_t)(((uint64_t)c->id * 2654435761u + (uint64_t)i) % 32000);

		c->left--;
		n = snprintf(
			ev, sizeof ev,
			"data: {\"id\":\"cmpl-null-%lld\",\"object\":\"text_completion\",\"created\":0,\"model\":\"null\","
			"\"choices\":[{\"index\":0,\"text\":\" w%lld\",\"logprobs\":null,\"finish_reason\":%s,"
			"\"stop_reason\":null,\"token_ids\":[%lld]}]}\n\n",
			(long long)c->id, (long long)tok, c->left ? "null" : "\"length\"", (long long)tok);
		s->tokens++;
		if (!c->left)
			c->phase = USAGE;
		put_chunk(c, ev, n);
		return;
	}
	case USAGE:
		n = snprintf(
			ev, sizeof ev,
			"data: {\"id\":\"cmpl-null-%lld\",\"object\":\"text_completion\",\"created\":0,\"model\":\"null\","
			"\"choices\":[],\"usage\":{\"prompt_tokens\":%lld,\"total_tokens\":%lld,\"completion_tokens\":%lld}}\n\n",
			(long long)c->id, (long long)c->prompt, (long long)(c->prompt + c->tokens),
			(long long)c->tokens);
		c->phase = DONE;
		put_chunk(c, ev, n);
		return;
	case DONE:
		c->outlen += (size_t)snprintf(c->out + c->outlen, sizeof c->out - c->outlen,
					      "e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n");
		c->phase = READING;
		s->requests++;
		return;
	default: return;
	}
}

/* A turn's output: up to 'burst' chunks, written at once. */
static void next_chunks(struct server *s, struct conn *c)
{
	c->outlen = c->outoff = 0;
	for (int i = 0; i < s->burst && c->phase != READING; i++)
		next_chunk(s, c);
}

/* The value of header 'name' in the head [p, end), or NULL. */
static const char *header(const char *p, const char *end, const char *name)
{
	size_t len = strlen(name);

	while ((p = memchr(p, '\n', (size_t)(end - p))) && ++p < end)
		if ((size_t)(end - p) > len && !strncasecmp(p, name, len) && p[len] == ':')
			return p + len + 1;
	return NULL;
}

/* A fixed response, and whether the connection stays open after it. */
static void respond(struct conn *c, const char *status, const char *type, const char *body, int keep)
{
	c->outoff = 0;
	c->outlen = (size_t)snprintf(
		c->out, sizeof c->out,
		"HTTP/1.1 %s\r\nServer: labrun-null\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n%s", status,
		type, strlen(body), keep ? "" : "Connection: close\r\n", body);
	c->phase = keep ? READING : CLOSING;
}

/* A completion request: how many tokens, and the prompt's size for the usage chunk. */
static void start_stream(struct server *s, struct conn *c, const char *body, size_t len)
{
	json_t *req = json_loadb(body, len, 0, NULL), *v;

	c->tokens = 16;
	c->prompt = 0;
	if ((v = json_object_get(req, "max_tokens")) && json_is_integer(v) && json_integer_value(v) > 0)
		c->tokens = json_integer_value(v);
	if ((v = json_object_get(req, "prompt_token_ids")) && json_is_array(v))
		c->prompt = (int64_t)json_array_size(v);
	else if ((v = json_object_get(req, "prompt")) && json_is_string(v))
		c->prompt = (int64_t)json_string_length(v);
	json_decref(req);
	c->id = s->next_id++;
	c->left = c->tokens;
	c->phase = TOKENS;
	c->outoff = 0;
	c->outlen = (size_t)snprintf(c->out, sizeof c->out,
				     "HTTP/1.1 200 OK\r\nServer: labrun-null\r\nContent-Type: text/event-stream\r\n"
				     "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n");
}

/* The request at the start of c->in, once it is whole: 1 when one was taken, 0 when more is needed. */
static int take_request(struct server *s, struct conn *c)
{
	static const char models[] =
		"{\"object\":\"list\",\"data\":[{\"id\":\"null\",\"object\":\"model\",\"owned_by\":\"labrun\"}]}";
	const char *head = c->in, *end = memmem(c->in, c->inlen, "\r\n\r\n", 4), *cl;
	size_t head_len, body_len = 0;

	if (!end)
		return 0;
	head_len = (size_t)(end - head) + 4;
	if ((cl = header(head, end, "content-length")))
		body_len = strtoul(cl, NULL, 10);
	if (body_len > sizeof c->in - head_len) {
		respond(c, "413 Content Too Large", "text/plain", "", 0);
		return 1;
	}
	if (c->inlen < head_len + body_len)
		return 0;
	if (!strncmp(head, "POST /v1/completions ", 21))
		start_stream(s, c, head + head_len, body_len);
	else if (!strncmp(head, "GET /v1/models ", 15))
		respond(c, "200 OK", "application/json", models, 1);
	else
		respond(c, "404 Not Found", "text/plain", "", 1);
	c->inlen -= head_len + body_len;
	memmove(c->in, c->in + head_len + body_len, c->inlen);
	return 1;
}

/* Write what is pending; 1 while the connection lives. */
static int flush(struct conn *c)
{
	while (c->outoff < c->outlen) {
		ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->outoff += (size_t)n;
	}
	return 1;
}

/* A connection's turn: one chunk written while it streams, else its bytes read and a request taken. */
static void turn(struct server *s, struct conn *c, uint32_t events)
{
	if (events & (EPOLLERR | EPOLLHUP))
		goto close;
	if (c->phase != READING || c->outoff < c->outlen) {
		if (c->outoff == c->outlen)
			next_chunks(s, c);
		if (!flush(c) || (c->phase == CLOSING && c->outoff == c->outlen))
			goto close;
		if (c->phase == READING && c->outoff == c->outlen && !(c->inlen && take_request(s, c)))
			conn_wait(s, c, EPOLLIN);
		return;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->inlen, sizeof c->in - c->inlen, 0);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			goto close;
		if (n < 0)
			break;
		c->inlen += (size_t)n;
		if (c->inlen == sizeof c->in)
			break;
	}
	if (take_request(s, c)) {
		if (!flush(c))
			goto close;
		conn_wait(s, c, EPOLLOUT); /* streams advance a chunk a turn; a fixed response ends there */
	} else if (c->inlen == sizeof c->in) {
		goto close;
	}
	return;
close:
	conn_close(s, c);
}

static void accept_all(struct server *s, int lfd)
{
	int fd, one = 1;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct conn *c = calloc(1, sizeof *c);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->phase = READING;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof one); /* a chunk a segment, as a real server sends */
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev))
			conn_close(s, c);
	}
}

/* The child: serve until SIGTERM, then report the counts on 'report'. */
static void serve(int lfd, int report, int burst)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[512];
	struct sigaction sa;
	struct server s = { .burst = burst };
	sigset_t block, wait_mask;
	int64_t counts[2];
	int i, n;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN); /* Ctrl-C reaches the benchmark, which stops this */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if ((s.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 || epoll_ctl(s.epfd, EPOLL_CTL_ADD, lfd, &ev))
		_exit(1);
	while (!stopping) {
		if ((n = epoll_pwait(s.epfd, evs, 512, -1, &wait_mask)) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (i = 0; i < n; i++) {
			if (!evs[i].data.ptr)
				accept_all(&s, lfd);
			else
				turn(&s, evs[i].data.ptr, evs[i].events);
		}
	}
	counts[0] = s.requests;
	counts[1] = s.tokens;
	_exit(write(report, counts, sizeof counts) == (ssize_t)sizeof counts ? 0 : 1);
}

int lr_nullserver_start(struct lr_nullserver *s, int burst)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof a;
	int lfd, p[2] = { -1, -1 };

	memset(s, 0, sizeof *s);
	s->report = -1;
	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 4096) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) || pipe2(p, O_CLOEXEC)) {
		int e = errno;

		if (lfd >= 0)
			close(lfd);
		return lr_error_set(LR_EIO, "cannot start the null server on 127.0.0.1: %s", strerror(e));
	}
	fflush(NULL);
	if ((s->pid = fork()) < 0) {
		int e = errno;

		close(lfd);
		close(p[0]);
		close(p[1]);
		return lr_error_set(LR_EIO, "cannot start the null server: fork: %s", strerror(e));
	}
	if (s->pid == 0) {
		close(p[0]);
		serve(lfd, p[1], burst < 1 ? 1 : burst > LR_NULLSERVER_MAXBURST ? LR_NULLSERVER_MAXBURST : burst);
	}
	close(lfd);
	close(p[1]);
	s->port = ntohs(a.sin_port);
	s->report = p[0];
	return 0;
}

int lr_nullserver_stop(struct lr_nullserver *s, struct lr_nullserver_stats *out)
{
	int64_t counts[2] = { 0, 0 };
	struct rusage ru;
	ssize_t got;
	int status = 0;

	memset(out, 0, sizeof *out);
	kill(s->pid, SIGTERM);
	do
		got = read(s->report, counts, sizeof counts);
	while (got < 0 && errno == EINTR);
	close(s->report);
	s->report = -1;
	while (wait4(s->pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return lr_error_set(LR_EIO, "the null server (pid %ld) is lost: %s", (long)s->pid,
					    strerror(errno));
	s->pid = 0;
	if (got != (ssize_t)sizeof counts || !WIFEXITED(status) || WEXITSTATUS(status))
		return lr_error_set(LR_EIO, "the null server failed (status 0x%x)", (unsigned)status);
	out->requests = counts[0];
	out->tokens = counts[1];
	out->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	out->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return 0;
}
