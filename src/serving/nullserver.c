/* The null streaming server of 'labrun bench collect': vLLM's stream shapes at no cost of its own. */
#include "config.h"
#include "base/system.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>

#include <jansson.h>

#include "base/list.h"
#include "serving/nullserver.h"

#define REQUEST_MAX (16 * 1024) /* the benchmark's request bodies are well under 1 KiB */

/* Where a connection's response is: each step writes one chunk of it. */
enum phase { READING, TOKENS, USAGE, DONE, CLOSING };

struct conn {
	int fd;
	enum phase phase;
	int64_t id, left, tokens, prompt; /* the request's number, tokens still to send, asked, prompt size */
	size_t inlen, outlen, outoff;
	int64_t due_ns; /* paced: when its next token is written, CLOCK_MONOTONIC */
	int queued;     /* paced: waiting in the server's heap for due_ns */
	int dead;       /* closed while queued: freed when it leaves the heap */
	char in[REQUEST_MAX];
	char out[LR_NULLSERVER_MAXBURST * 512];
};

struct server {
	int epfd, burst, tfd; /* tfd: the pacing timer, or -1 unpaced */
	int64_t requests, tokens, next_id;
	int64_t gap_ns, ttft_ns, armed_ns; /* armed_ns: when the timer fires, 0 when it is not armed */
	struct conn **heap;                /* paced streams by due_ns, earliest first */
	size_t nheap, cap;
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
	if (c->queued)
		c->dead = 1; /* the heap frees it */
	else
		free(c);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Queue a paced stream for its due time (a binary heap on due_ns). */
static void heap_push(struct server *s, struct conn *c)
{
	size_t i = s->nheap;

	if (LR_ALLOC_GROW(s->heap, s->nheap + 1, s->cap))
		_exit(1);
	s->nheap++;
	for (; i && s->heap[(i - 1) / 2]->due_ns > c->due_ns; i = (i - 1) / 2)
		s->heap[i] = s->heap[(i - 1) / 2];
	s->heap[i] = c;
	c->queued = 1;
}

static struct conn *heap_pop(struct server *s)
{
	struct conn *top = s->heap[0], *last = s->heap[--s->nheap];
	size_t i = 0, k;

	while ((k = 2 * i + 1) < s->nheap) {
		if (k + 1 < s->nheap && s->heap[k + 1]->due_ns < s->heap[k]->due_ns)
			k++;
		if (s->heap[k]->due_ns >= last->due_ns)
			break;
		s->heap[i] = s->heap[k];
		i = k;
	}
	if (s->nheap)
		s->heap[i] = last;
	top->queued = 0;
	return top;
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

/* A request was taken: a paced stream waits for its first token's time, anything else is written at once. */
static int started(struct server *s, struct conn *c)
{
	if (!flush(c))
		return 0;
	if (s->tfd < 0 || c->phase != TOKENS) {
		conn_wait(s, c, EPOLLOUT); /* streams advance a chunk a turn; a fixed response ends there */
		return 1;
	}
	c->due_ns = now_ns() + s->ttft_ns;
	heap_push(s, c);
	conn_wait(s, c, c->outoff < c->outlen ? EPOLLOUT : 0);
	return 1;
}

/* A response ended and is written: the next request if one is here, else wait for one. */
static void next_request(struct server *s, struct conn *c)
{
	if (c->inlen && take_request(s, c)) {
		if (!started(s, c))
			conn_close(s, c);
	} else {
		conn_wait(s, c, EPOLLIN);
	}
}

/* A paced stream's due time: its next token (the last with the usage chunk and [DONE]) in one write. */
static void tick(struct server *s, struct conn *c)
{
	if (c->dead) {
		free(c);
		return;
	}
	if (c->outoff == c->outlen) {
		c->outlen = c->outoff = 0;
		next_chunk(s, c);
		while (c->phase == USAGE || c->phase == DONE)
			next_chunk(s, c);
	}
	if (!flush(c)) {
		conn_close(s, c);
		return;
	}
	if (c->phase != READING) { /* the schedule is fixed: a late write does not move the next */
		c->due_ns = c->outoff < c->outlen && !s->gap_ns ? now_ns() + 1000000 : c->due_ns + s->gap_ns;
		heap_push(s, c);
	}
	if (c->outoff < c->outlen)
		conn_wait(s, c, EPOLLOUT); /* the client is behind: written when it reads */
	else if (c->phase == READING)
		next_request(s, c);
}

/* Every paced stream that is due, then the timer armed for the next. */
static void run_due(struct server *s)
{
	struct itimerspec its = { 0 };
	int64_t now;

	if (!s->nheap)
		return;
	now = now_ns();
	while (s->nheap && s->heap[0]->due_ns <= now)
		tick(s, heap_pop(s));
	if (!s->nheap || s->heap[0]->due_ns == s->armed_ns)
		return;
	s->armed_ns = s->heap[0]->due_ns;
	its.it_value.tv_sec = (time_t)(s->armed_ns / 1000000000);
	its.it_value.tv_nsec = (long)(s->armed_ns % 1000000000);
	if (timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL))
		_exit(1);
}

/* A connection's turn: one chunk written while it streams, else its bytes read and a request taken. */
static void turn(struct server *s, struct conn *c, uint32_t events)
{
	if (events & (EPOLLERR | EPOLLHUP))
		goto close;
	if (s->tfd >= 0 && (c->phase == TOKENS || c->phase == USAGE || c->phase == DONE)) {
		if (!flush(c)) /* paced: only what a late tick left is written here */
			goto close;
		if (c->outoff == c->outlen)
			conn_wait(s, c, 0);
		return;
	}
	if (s->tfd >= 0 && c->phase == READING && c->outoff < c->outlen) {
		if (!flush(c))
			goto close;
		if (c->outoff == c->outlen)
			next_request(s, c);
		return;
	}
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
		if (!started(s, c))
			goto close;
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

/* Pin the calling process to 'cpu' (-1: leave it); 0, or an errno value. */
static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set) ? errno : 0;
}

/* The pacing timer in the loop 'epfd' (data.ptr its own fd's address), or -1 unpaced. */
static int pacing_timer(struct server *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->tfd };

	if (!s->gap_ns && !s->ttft_ns)
		return -1;
	if ((s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->tfd, &ev))
		_exit(1);
	return s->tfd;
}

/* The child: serve until SIGTERM, then report the counts on 'report'. */
static void serve(int lfd, int report, const struct lr_nullserver_opts *o)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[512];
	struct sigaction sa;
	struct server s = { .burst = o->burst < 1                        ? 1
				     : o->burst > LR_NULLSERVER_MAXBURST ? LR_NULLSERVER_MAXBURST
									 : o->burst,
			    .gap_ns = o->gap_s > 0 ? (int64_t)(o->gap_s * 1e9) : 0,
			    .ttft_ns = o->ttft_s > 0 ? (int64_t)(o->ttft_s * 1e9) : 0 };
	uint64_t fired;
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
	if (pin(o->cpu) || (s.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 || epoll_ctl(s.epfd, EPOLL_CTL_ADD, lfd, &ev))
		_exit(1);
	s.tfd = pacing_timer(&s);
	while (!stopping) {
		if ((n = epoll_pwait(s.epfd, evs, 512, -1, &wait_mask)) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (i = 0; i < n; i++) {
			if (!evs[i].data.ptr)
				accept_all(&s, lfd);
			else if (evs[i].data.ptr == &s.tfd)
				s.armed_ns = read(s.tfd, &fired, sizeof fired) < 0 ? s.armed_ns : 0;
			else
				turn(&s, evs[i].data.ptr, evs[i].events);
		}
		run_due(&s);
	}
	counts[0] = s.requests;
	counts[1] = s.tokens;
	_exit(write(report, counts, sizeof counts) == (ssize_t)sizeof counts ? 0 : 1);
}

int lr_nullserver_start(struct lr_nullserver *s, const struct lr_nullserver_opts *o)
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
		serve(lfd, p[1], o);
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
