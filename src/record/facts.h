#ifndef LR_RECORD_FACTS_H
#define LR_RECORD_FACTS_H

/*
 * Where a run ran and with what, as the user states it: the facts 'record',
 * 'run' and 'replay' take as --binding, --tool, --source, --geometry and
 * --note, and an experiment definition's [record] section declares (tool
 * probes too). One struct, one way onto the run (lr_run_facts_apply).
 */

#include "base/error.h"
#include "base/list.h"
#include "base/model.h"

struct lr_run_facts {
	struct lr_kvlist geometry; /* KEY=VALUE, checked by lr_fact_parse */
	struct lr_kvlist binding;
	struct lr_kvlist tools;    /* NAME=VERSION as stated */
	struct lr_kvlist probes;   /* NAME -> shell command whose output is the version ([record] only) */
	struct lr_strlist sources; /* files or directories hashed as sources */
	const char *note;          /* borrowed, or NULL */
};

void lr_run_facts_release(struct lr_run_facts *f);

/* Add 'from' to 'into' (copied; a key both give, and the note, take from's value): a definition's, then the command line's. */
LR_MUST_CHECK int lr_run_facts_merge(struct lr_run_facts *into, const struct lr_run_facts *from);

/*
 * Put f's facts on 'run' (captured by lr_run_capture, not stored yet): the
 * sources hashed, the binding (scrubbed of secret values, origin 'user',
 * over what labrun observed), geometry and tools (a key already there is
 * replaced: apply a definition's facts first, the command line's after), and
 * every probe run once: `/bin/sh -c COMMAND`, stdout and stderr together;
 * its first non-blank line is the tool's version, its command and whole
 * output (scrubbed, at most LR_PROBE_MAX bytes) are kept as its evidence. A
 * probe that cannot run, fails or prints nothing is LR_EINVAL naming it.
 * envp is the environment probes run with.
 */
#define LR_PROBE_MAX 4096
LR_MUST_CHECK int lr_run_facts_apply(struct lr_run *run, const struct lr_run_facts *f, char *const *envp);

/*
 * Ask the device the binding names, where it can be asked: with a 'device'
 * binding of a GPU (cuda:N, gpu:N, nvidia:N) and nvidia-smi on PATH, or of an
 * RBLN NPU (atom:N, rbln:N) and rbln-smi on PATH, its serial and firmware
 * are added to 'binding' under 'prefix' ("" for the run's, "arm.B." for
 * arm B's) as device_serial and device_firmware (origin 'auto'). Nothing
 * when neither tool is there or its answer does not name the device.
 */
LR_MUST_CHECK int lr_device_identity(struct lr_kvlist *binding, const char *prefix, const char *device,
				     char *const *envp);

/*
 * The cards a run ran on: its 'device' binding and each arm's own
 * (arm:NAME:device), with the serial where the device was asked. A card is
 * its serial when known, else its device name on the run's host.
 */
#define LR_MAXCARDS 9
struct lr_card {
	char who[40];    /* "" for the run's own binding, else the arm's name */
	char device[64]; /* "atom:0" */
	char serial[64]; /* "" when not asked */
	char host[64];   /* the run's host */
};
int lr_run_cards(const struct lr_run *r, struct lr_card *out, int max);

/* Whether two cards are different cards (a serial on both decides; else host and device). */
int lr_cards_differ(const struct lr_card *a, const struct lr_card *b);

/*
 * "the arms ran on different cards: arm A on atom:0, arm B on atom:1" when
 * the cards of r's arms differ, into buf; "" when they do not (or are unbound).
 */
void lr_run_cards_said(const struct lr_run *r, char *buf, size_t len);

/* The backend run r states in its binding (a serving run's: the engine it reached); 'fallback' when none. */
const char *lr_run_backend(const struct lr_run *r, const char *fallback);

/*
 * labrun's own identity, as LoadGen fingerprints itself: the sha256 of the
 * running binary (/proc/self/exe), read through the store's file hash cache
 * so an unchanged binary is hashed once, and the build options compiled in.
 * Added to run->recorder: binary_sha256, binary_size, configure, cc, cflags.
 */
struct lr_store;
LR_MUST_CHECK int lr_recorder_identity(struct lr_store *st, struct lr_run *run);

#endif
