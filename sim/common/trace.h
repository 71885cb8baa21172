/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim tracing.  With `ionic-sim --trace FILE` every process of the
 * run appends one line per event to FILE:
 *
 *     <pid> <tid> t=<seconds.micro> <CATEGORY> <free text>
 *
 * Each line is one write() on an O_APPEND descriptor, so lines of
 * concurrent processes and threads never interleave.  Categories are short
 * upper-case words; the ones in use are defined below (any string works).
 *
 * Cost when tracing is off: isim_trace_enabled() is one load and compare;
 * call it before formatting anything expensive.
 *
 * $IONIC_SIM_TRACE_ONLY ("QP" or "PKT,EVENT") writes only the categories
 * it names: a long run that wants a few lines (the per-QP counters) does
 * not pay a write per packet.
 */
#ifndef ISIM_TRACE_H
#define ISIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#define ISIM_TR_CMD "CMD" /* uverbs write/ioctl commands and results */
#define ISIM_TR_MMAP "MMAP" /* mmap/munmap of the uverbs fd */
#define ISIM_TR_DB "DB" /* captured doorbell stores, decoded */
#define ISIM_TR_WQE "WQE" /* WQEs consumed by the device */
#define ISIM_TR_WQERAW "WQERAW" /* their bytes, with IONIC_SIM_TRACE_RAW */
#define ISIM_TR_CQE "CQE" /* CQEs written by the device */
#define ISIM_TR_PKT "PKT" /* fabric packets */
#define ISIM_TR_EVENT "EVENT" /* async and completion events */
#define ISIM_TR_FD "FD" /* device open/close/dup bookkeeping */
#define ISIM_TR_DIRECT "DIRECT" /* which path work takes, and why */
#define ISIM_TR_QP "QP" /* a QP's counters when it is destroyed */

/* -1: not looked at yet, 0: off, 1: on.  Use isim_trace_enabled(). */
extern int isim_trace_state;
int isim_trace_init(void);
/* IONIC_SIM_TRACE_RAW set (and not "0") with tracing on: each WQE line
 * is followed by the slot's bytes as the device copied them (the decoded
 * line leaves out addresses of SGEs and bytes the decoder ignores), for a
 * byte-for-byte comparison of two providers (docs/oracle-comparison.md). */
extern bool isim_trace_raw;

static inline bool isim_trace_enabled(void)
{
	int s = __atomic_load_n(&isim_trace_state, __ATOMIC_RELAXED);

	return s > 0 || (s < 0 && isim_trace_init() > 0);
}

void isim_trace(const char *cat, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* One line: "<prefix> <hex bytes>" (at most 256 bytes are shown). */
void isim_trace_hex(const char *cat, const char *prefix, const void *buf,
		    size_t len);
/* Call in a fork child: pid/tid caches are stale there. */
void isim_trace_atfork_child(void);

#endif /* ISIM_TRACE_H */
