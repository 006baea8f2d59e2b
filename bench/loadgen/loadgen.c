/*
 * Connection load generator for bench/serve_bench.py (run by hand, never from the tests).
 *
 *   loadgen PORT PAYLOADS open RATE SECONDS WARMUP
 *   loadgen PORT PAYLOADS closed CONCURRENCY SECONDS WARMUP
 *
 * Each connection: non-blocking connect to 127.0.0.1:PORT, write one hello (taken in turn from
 * PAYLOADS: a file of 4-byte big-endian lengths each followed by that many bytes), read and
 * discard until the server closes. Latency is from the connection's start to the close; in the
 * open loop the start is the *scheduled* time (start i at begin + i / RATE), so a server that falls
 * behind shows in the tail (no coordinated omission). Connections scheduled during the first
 * WARMUP seconds are not measured. One epoll loop, one timerfd for the schedule: the generator
 * spends a few microseconds per connection, so on a 2-core machine it leaves the other core to
 * the server it measures.
 *
 * Prints one line of JSON: achieved rate, p50/p99/max in ms, measured and total connections,
 * errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    double start;      /* scheduled (open loop) or actual (closed loop) start, seconds */
    const char *data;  /* the hello */
    size_t len;
    size_t sent;
    int fd;
    int measured;
} conn_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *payload_buf;
static size_t *payload_off, *payload_len;
static size_t payload_count;

static void load_payloads(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    payload_buf = malloc((size_t)size);
    if (fread(payload_buf, 1, (size_t)size, f) != (size_t)size) { perror("read payloads"); exit(2); }
    fclose(f);
    size_t cap = 1024;
    payload_off = malloc(cap * sizeof(size_t));
    payload_len = malloc(cap * sizeof(size_t));
    size_t pos = 0;
    while (pos + 4 <= (size_t)size) {
        const unsigned char *p = (const unsigned char *)payload_buf + pos;
        size_t n = ((size_t)p[0] << 24) | ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | p[3];
        if (pos + 4 + n > (size_t)size) break;
        if (payload_count == cap) {
            cap *= 2;
            payload_off = realloc(payload_off, cap * sizeof(size_t));
            payload_len = realloc(payload_len, cap * sizeof(size_t));
        }
        payload_off[payload_count] = pos + 4;
        payload_len[payload_count] = n;
        payload_count++;
        pos += 4 + n;
    }
    if (!payload_count) { fprintf(stderr, "%s: no payloads\n", path); exit(2); }
}

static int epfd;
static struct sockaddr_in target;
static double *lat;
static size_t lat_n, lat_cap;
static long started, finished, errors;
static long in_flight;

static void record(double latency) {
    if (lat_n == lat_cap) {
        lat_cap = lat_cap ? lat_cap * 2 : 65536;
        lat = realloc(lat, lat_cap * sizeof(double));
    }
    lat[lat_n++] = latency;
}

static int start_conn(double start, int measured) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) { errors++; return -1; }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conn_t *c = malloc(sizeof *c);
    size_t k = (size_t)started % payload_count;
    c->start = start;
    c->data = payload_buf + payload_off[k];
    c->len = payload_len[k];
    c->sent = 0;
    c->measured = measured;
    started++;
    if (connect(fd, (struct sockaddr *)&target, sizeof target) < 0 && errno != EINPROGRESS) {
        errors++;
        close(fd);
        free(c);
        return -1;
    }
    c->fd = fd;
    struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) { errors++; close(fd); free(c); return -1; }
    in_flight++;
    return 0;
}

static void end_conn(conn_t *c, int fd, int ok) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
    close(fd);
    if (ok && c->measured) record(now_s() - c->start);
    if (!ok) errors++;
    finished++;
    in_flight--;
    free(c);
}

/* returns 1 when the connection ended */
static int on_event(conn_t *c, uint32_t events) {
    int fd = c->fd;
    size_t sent = c->sent;
    if (events & EPOLLERR) { end_conn(c, fd, 0); return 1; }
    if (sent < c->len && (events & EPOLLOUT)) {
        ssize_t n = write(fd, c->data + sent, c->len - sent);
        if (n < 0) {
            if (errno == EAGAIN) return 0;
            end_conn(c, fd, 0);
            return 1;
        }
        sent += (size_t)n;
        c->sent = sent;
        if (sent == c->len) {
            struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
            epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
        }
        return 0;
    }
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
        char buf[4096];
        for (;;) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n > 0) continue;
            if (n == 0) { end_conn(c, fd, 1); return 1; }
            if (errno == EAGAIN) return 0;
            /* a reset after the answer still ends the exchange the server owes us */
            end_conn(c, fd, errno == ECONNRESET);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: loadgen PORT PAYLOADS open|closed RATE|CONCURRENCY SECONDS WARMUP\n");
        return 2;
    }
    int port = atoi(argv[1]);
    load_payloads(argv[2]);
    int open_loop = strcmp(argv[3], "open") == 0;
    double amount = atof(argv[4]);
    double seconds = atof(argv[5]);
    double warmup = atof(argv[6]);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);

    memset(&target, 0, sizeof target);
    target.sin_family = AF_INET;
    target.sin_port = htons((uint16_t)port);
    target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct epoll_event tev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &tev);

    double begin = now_s() + 0.01;
    double measure_from = begin + warmup;
    double stop = measure_from + seconds;
    long total = open_loop ? (long)((warmup + seconds) * amount) : 0;
    long next = 0;  /* open loop: index of the next scheduled connection */
    double ended = 0;
    struct epoll_event events[256];

    if (!open_loop) {
        for (long i = 0; i < (long)amount; i++) start_conn(now_s(), now_s() >= measure_from);
    }
    for (;;) {
        double now = now_s();
        if (open_loop) {
            while (next < total && begin + (double)next / amount <= now) {
                double at = begin + (double)next / amount;
                start_conn(at, at >= measure_from);
                next++;
            }
            if (next >= total && ended == 0) ended = now;
            if (next < total) {
                double wait = begin + (double)next / amount - now_s();
                if (wait < 1e-6) wait = 1e-6;
                struct itimerspec its = {{0, 0}, {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)}};
                timerfd_settime(tfd, 0, &its, NULL);
            } else if (in_flight == 0) {
                break;
            }
        } else if (now >= stop && in_flight == 0) {
            ended = now;
            break;
        }
        int n = epoll_wait(epfd, events, 256, open_loop ? 1000 : 100);
        for (int i = 0; i < n; i++) {
            conn_t *c = events[i].data.ptr;
            if (c == NULL) {
                uint64_t expirations;
                if (read(tfd, &expirations, sizeof expirations) < 0) { /* spurious */ }
                continue;
            }
            if (on_event(c, events[i].events) && !open_loop && now_s() < stop) {
                double t = now_s();
                start_conn(t, t >= measure_from);
            }
        }
    }
    double span = open_loop ? ended - measure_from : seconds;
    double p50 = 0, p99 = 0, mx = 0;
    if (lat_n) {
        qsort(lat, lat_n, sizeof(double), cmp_double);
        p50 = lat[(size_t)(0.50 * (double)(lat_n - 1))];
        p99 = lat[(size_t)(0.99 * (double)(lat_n - 1))];
        mx = lat[lat_n - 1];
    }
    printf("{\"rate\": %.1f, \"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f, \"n\": %zu, \"total\": %ld, "
           "\"errors\": %ld}\n",
           (double)lat_n / span, p50 * 1000, p99 * 1000, mx * 1000, lat_n, finished, errors);
    return 0;
}
