/* The raw client of 'labrun bench collect': epoll, recv and chunked framing, nothing else. */
#include "config.h"
#include "base/system.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>

#include "serving/rawclient.h"

#define TIMER UINT32_MAX /* the epoll tag of the arrival timer */

/* Where a response's bytes are: the head, a chunk's size line, its data, the end after the last chunk. */
enum frame { HEAD, SIZE, DATA, END };

struct conn {
	int fd, busy;
	enum frame at;
	uint64_t left;   /* DATA: bytes of the chunk and its CRLF still to come; SIZE: the size so far */
	unsigned crlf;   /* HEAD: bytes of "\r\n\r\n" matched; SIZE: past the digits */
	int64_t events;  /* chunks of the response read whole */
	char status[12]; /* the head's first bytes */
	unsigned status_n;
};

/* What the child hands back, in memory shared with the parent; 'lag_ms' follows it. */
struct shared {
	int64_t completed, tokens;
	double pass_s;
	char why[160];
};

struct loop {
	const struct lr_rawclient_opts *o;
	struct shared *sh;
	double *lag_ms;
	struct conn *c;
	int epfd, tfd;
	int64_t next, inflight;
	double start;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The child gives up, saying why ('err' an errno value, or 0). */
static _Noreturn void fail(struct loop *l, const char *what, int err)
{
	snprintf(l->sh->why, sizeof l->sh->why, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
	_exit(1);
}

/* The head's bytes: its status kept, its end found. */
static size_t head(struct conn *c, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && c->crlf < 4; i++) {
		if (c->status_n < sizeof c->status)
			c->status[c->status_n++] = p[i];
		c->crlf = p[i] == "\r\n\r\n"[c->crlf] ? c->crlf + 1 : p[i] == '\r';
	}
	if (c->crlf == 4) {
		c->at = SIZE;
		c->left = 0;
	}
	return i;
}

static int hex(char ch)
{
	return ch >= '0' && ch <= '9'                     ? ch - '0'
	       : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ? (ch | 0x20) - 'a' + 10
							  : -1;
}

/* A chunk's size line: hex digits, then anything up to its '\n' (an extension, the '\r'); c->crlf set past the
 * digits. */
static size_t size_line(struct conn *c, const char *p, size_t n, int *bad)
{
	for (size_t i = 0; i < n; i++) {
		int d = hex(p[i]);

		if (p[i] == '\n') {
			c->at = c->left ? DATA : END;
			c->left += c->left ? 2 : 0; /* the data's CRLF */
			c->crlf = 0;
			return i + 1;
		}
		if (c->crlf)
			continue;
		if (d < 0)
			c->crlf = 1;
		else if (c->left >> 56)
			*bad = 1;
		else
			c->left = c->left << 4 | (unsigned)d;
	}
	return n;
}

/*
 * Follow a response's framing over 'n' more bytes: 1 when it ended (the
 * zero-size chunk and the empty line after it), 0 when more is to come, -1
 * when it is not a 200 or its framing is broken.
 */
static int feed(struct conn *c, const char *p, size_t n)
{
	int bad = 0;

	while (n && !bad) {
		size_t k;

		if (c->at == HEAD) {
			k = head(c, p, n);
			c->crlf = c->at == SIZE ? 0 : c->crlf;
			if (c->at == SIZE && memcmp(c->status, "HTTP/1.1 200", sizeof c->status))
				return -1;
		} else if (c->at == SIZE) {
			k = size_line(c, p, n, &bad);
		} else if (c->at == DATA) {
			k = n < c->left ? n : (size_t)c->left;
			if (!(c->left -= k)) {
				c->events++;
				c->at = SIZE;
			}
		} else { /* no trailers: the empty line after the last chunk ends it, and nothing follows */
			const char *nl = memchr(p, '\n', n);

			return nl ? (nl == p + n - 1 ? 1 : -1) : 0;
		}
		p += k;
		n -= k;
	}
	return bad ? -1 : 0;
}

/* Send the next request on a free connection, opened on first use. */
static void send_next(struct loop *l, double t)
{
	char req[512], body[256];
	struct conn *c = l->c;
	int blen, rlen, one = 1;

	while (c->busy)
		c++;
	if (!c->fd) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons((uint16_t)l->o->port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)(c - l->c) };

		if ((c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
		    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) ||
		    connect(c->fd, (struct sockaddr *)&a, sizeof a) || epoll_ctl(l->epfd, EPOLL_CTL_ADD, c->fd, &ev))
			fail(l, "cannot connect to the null server", errno);
	}
	blen = snprintf(body, sizeof body,
			"{\"prompt\":\"the null server ignores prompt %lld\",\"max_tokens\":%lld,\"temperature\":0.0,"
			"\"stream\":true,\"stream_options\":{\"include_usage\":true},\"ignore_eos\":true}",
			(long long)l->next, (long long)l->o->tokens);
	rlen = snprintf(req, sizeof req,
			"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: */*\r\n"
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			l->o->port, blen, body);
	l->lag_ms[l->next] = (t - l->start - (l->o->at_s ? l->o->at_s[l->next] : 0)) * 1e3;
	if (send(c->fd, req, (size_t)rlen, MSG_NOSIGNAL) != rlen)
		fail(l, "cannot send a request", errno);
	c->at = HEAD;
	c->left = c->crlf = c->status_n = 0;
	c->events = 0;
	c->busy = 1;
	l->next++;
	l->inflight++;
}

/* Send what is due; arm the timer for the next arrival when a slot is free for it. */
static void send_due(struct loop *l)
{
	const struct lr_rawclient_opts *o = l->o;
	double t = now_s();

	while (l->next < o->requests && l->inflight < o->concurrency && (!o->at_s || l->start + o->at_s[l->next] <= t))
		send_next(l, t);
	if (o->at_s && l->next < o->requests && l->inflight < o->concurrency) {
		double due = l->start + o->at_s[l->next];
		struct itimerspec its = { .it_value = { (time_t)due, (long)((due - floor(due)) * 1e9) } };

		if (timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL))
			fail(l, "cannot arm the arrival timer", errno);
	}
}

/* A readable connection: its bytes read and followed; a response's end frees the slot. */
static void readable(struct loop *l, struct conn *c, char *buf, size_t size)
{
	ssize_t n = recv(c->fd, buf, size, 0);
	int end;

	(void)now_s(); /* a client takes each arrival's time */
	if (n <= 0)
		fail(l, n ? "cannot read a response" : "the null server closed a connection", n ? errno : 0);
	if ((end = feed(c, buf, (size_t)n)) < 0 || !c->busy)
		fail(l, "a response that is not a 200 stream of chunks", 0);
	if (end) {
		l->sh->tokens += c->events - 2; /* its usage chunk and [DONE] are not tokens */
		l->sh->completed++;
		l->inflight--;
		c->busy = 0;
	}
}

static _Noreturn void run(struct loop *l)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TIMER }, evs[64];
	static char buf[1 << 16];
	uint64_t fired;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if ((l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0 ||
	    epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->tfd, &ev))
		fail(l, "cannot make the event loop", errno);
	l->start = now_s();
	while (l->sh->completed < l->o->requests) {
		int n;

		send_due(l);
		if ((n = epoll_wait(l->epfd, evs, 64, -1)) < 0 && errno != EINTR)
			fail(l, "cannot wait for events", errno);
		for (int i = 0; i < n; i++)
			if (evs[i].data.u32 == TIMER)
				(void)!read(l->tfd, &fired, sizeof fired);
			else
				readable(l, &l->c[evs[i].data.u32], buf, sizeof buf);
	}
	l->sh->pass_s = now_s() - l->start;
	_exit(0);
}

/* Wait for the child; its CPU time, and whether it read every response. */
static int reap(pid_t pid, const struct lr_rawclient_opts *o, const struct shared *sh, struct lr_rawclient_result *r)
{
	struct rusage ru;
	int status = 0;

	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return lr_error_set(LR_EIO, "the raw client (pid %ld) is lost: %s", (long)pid, strerror(errno));
	r->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	r->completed = sh->completed;
	r->tokens = sh->tokens;
	r->pass_s = sh->pass_s;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || sh->completed != o->requests)
		return lr_error_set(LR_EIO, "the raw client failed after %lld of %lld responses (status 0x%x): %s",
				    (long long)sh->completed, (long long)o->requests, (unsigned)status,
				    sh->why[0] ? sh->why : "it ended early");
	return 0;
}

int lr_rawclient_run(const struct lr_rawclient_opts *o, struct lr_rawclient_result *r)
{
	size_t lags = (size_t)o->requests * sizeof(double), size = sizeof(struct shared) + lags;
	struct loop l = { .o = o };
	void *map;
	pid_t pid;
	int rc;

	memset(r, 0, sizeof *r);
	if (o->requests < 1 || o->concurrency < 1)
		return lr_error_set(LR_EINVAL, "the raw client needs requests and a concurrency");
	if ((map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED ||
	    !(l.c = calloc((size_t)o->concurrency, sizeof *l.c))) {
		if (map != MAP_FAILED)
			munmap(map, size);
		return LR_ENOMEM;
	}
	l.sh = map;
	l.lag_ms = (double *)(l.sh + 1);
	fflush(NULL);
	if ((pid = fork()) < 0)
		rc = lr_error_set(LR_EIO, "cannot start the raw client: fork: %s", strerror(errno));
	else if (pid == 0)
		run(&l);
	else if (!(rc = reap(pid, o, l.sh, r)) && !(r->lag_ms = malloc(lags ? lags : 1)))
		rc = LR_ENOMEM;
	if (r->lag_ms)
		memcpy(r->lag_ms, l.lag_ms, lags);
	munmap(map, size);
	free(l.c);
	return rc;
}
