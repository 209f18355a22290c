#ifndef LR_BASE_CLOCK_H
#define LR_BASE_CLOCK_H

/* Clocks and the counters a timed repetition reads around itself. */

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), for intervals. */
double lr_monotonic_s(void);

/* Current UTC time as "YYYY-MM-DDTHH:MM:SS.mmmZ" in a malloc'd string. */
char *lr_now_iso(void);

/* CPU seconds of the calling thread, or of the whole process when 'process' is set. */
double lr_cpu_s(int process);

/* Involuntary context switches of the calling thread so far. */
long lr_invol_switches(void);

/* Steal ticks of the whole machine so far (/proc/stat), 0 when unknown. */
long long lr_steal_ticks(void);

/* A duration as users write one, "90", "1.5", "90s", "5m", "2h", in seconds; -1 when malformed or not positive. */
double lr_duration_parse(const char *s);

#endif
